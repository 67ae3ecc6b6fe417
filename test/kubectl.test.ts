/** kubectl (built with the tools) sees the CRDs with their short names and printer columns. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, PLURALS } from '../crds/src/index.js';
import { toolPath } from '../hack/lib/tools.js';
import {
  agentDeploymentResource,
  agentResource,
  workspaceResource,
} from './factories/custom-resources.js';
import { createNamespace, harness, kubeConfig } from './harness/env.js';

const run = promisify(execFile);
let kc: KubeConfig;
let namespace: string;

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(toolPath('kubectl'), [
    '--kubeconfig',
    harness().kubeconfigPath,
    ...args,
  ]);
  return stdout;
}

function header(output: string): string[] {
  return (output.split('\n')[0] ?? '').trim().split(/\s+/);
}

beforeAll(async () => {
  kc = kubeConfig();
  namespace = await createNamespace(kc, 'kubectl');
  const api = kc.makeApiClient(CustomObjectsApi);
  const create = (plural: string, body: object) =>
    api.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace,
      plural,
      body,
    });
  await create(PLURALS.Agent, agentResource(namespace, { name: 'printer', runtime: 'node22' }));
  await create(PLURALS.AgentDeployment, agentDeploymentResource(namespace));
  await create(PLURALS.Workspace, workspaceResource(namespace, 'research'));
});

afterAll(async () => {
  await kc.makeApiClient(CoreV1Api).deleteNamespace({ name: namespace });
});

describe('kubectl', () => {
  it('lists all three kinds across namespaces', async () => {
    const out = await kubectl('get', 'agents,agentdeployments,workspaces', '-A');
    expect(out).toContain(`agent.${API_GROUP}/`);
    expect(out).toContain(`agentdeployment.${API_GROUP}/`);
    expect(out).toContain(`workspace.${API_GROUP}/`);
  });

  it('shows the Agent printer columns under the short name ag', async () => {
    const out = await kubectl('get', 'ag', '-n', namespace);
    expect(header(out)).toEqual(['NAME', 'AGENT', 'TYPE', 'RUNTIME', 'STATUS', 'URL', 'AGE']);
    expect(out).toMatch(/printer\s+service\s+node22/);
  });

  it('shows the AgentDeployment printer columns under the short name agd', async () => {
    const out = await kubectl('get', 'agd', '-n', namespace);
    expect(header(out)).toEqual(['NAME', 'AGENT', 'VERSION', 'STATE', 'AGE']);
  });

  it('shows the Workspace printer columns under the short name ws', async () => {
    const out = await kubectl('get', 'ws', '-n', namespace);
    expect(header(out)).toEqual(['NAME', 'WORKSPACE', 'REGIONS', 'AGENTS', 'AGE']);
    expect(out).toContain('research');
  });

  it('groups the kinds under the svc-platform category', async () => {
    const out = await kubectl('get', 'svc-platform', '-n', namespace, '-o', 'name');
    expect(out.split('\n').filter(Boolean)).toHaveLength(3);
  });
});

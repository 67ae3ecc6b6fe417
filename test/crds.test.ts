/**
 * Smoke tests of the CRDs against the real kube-apiserver: each kind can be
 * created, read, have its status updated through the status subresource,
 * watched, and deleted; the structural schema rejects what the contract forbids.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi, Watch, type KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, PLURALS } from '../crds/src/index.js';
import {
  agentDeploymentResource,
  agentResource,
  workspaceResource,
} from './factories/custom-resources.js';
import { createNamespace, kubeConfig } from './harness/env.js';
import { waitFor } from './harness/wait.js';

interface KubeObject {
  metadata: { name?: string; resourceVersion?: string; generation?: number };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

let kc: KubeConfig;
let api: CustomObjectsApi;
let namespace: string;

beforeAll(async () => {
  kc = kubeConfig();
  api = kc.makeApiClient(CustomObjectsApi);
  namespace = await createNamespace(kc, 'crds');
});

afterAll(async () => {
  await kc.makeApiClient(CoreV1Api).deleteNamespace({ name: namespace });
});

const kinds = [
  {
    kind: 'Agent',
    plural: PLURALS.Agent,
    make: () => agentResource(namespace) as unknown as KubeObject,
    status: { status: 'running', deployed: true, url: 'http://hello-abc123.agents.localhost' },
  },
  {
    kind: 'AgentDeployment',
    plural: PLURALS.AgentDeployment,
    make: () => agentDeploymentResource(namespace) as unknown as KubeObject,
    status: { state: 'active', queuePosition: null, errorMessage: null, canRollback: true },
  },
  {
    kind: 'Workspace',
    plural: PLURALS.Workspace,
    make: () => workspaceResource(namespace) as unknown as KubeObject,
    status: { agentCount: 2 },
  },
];

describe.each(kinds)('$kind custom resource', ({ plural, make, status }) => {
  const coords = () => ({ group: API_GROUP, version: API_VERSION, namespace, plural });

  it('is created, read, status-updated, watched and deleted', async () => {
    const events: string[] = [];
    let onEvent: (() => void) | undefined;
    const watch = new Watch(kc);
    const controller = await watch.watch(
      `/apis/${API_GROUP}/${API_VERSION}/namespaces/${namespace}/${plural}`,
      {},
      (type: string, obj: KubeObject) => {
        events.push(`${type}:${obj.metadata.name}`);
        onEvent?.();
      },
      () => undefined,
    );
    try {
      const body = make();
      const name = body.metadata.name ?? '';
      const created = (await api.createNamespacedCustomObject({ ...coords(), body })) as KubeObject;
      expect(created.metadata.name).toBe(name);
      expect(created.metadata.generation).toBe(1);

      const read = (await api.getNamespacedCustomObject({ ...coords(), name })) as KubeObject;
      expect(read.spec).toEqual(body.spec);

      // Status goes through the subresource: it does not bump the generation,
      // and a status sent to the main resource is ignored.
      const withStatus = (await api.replaceNamespacedCustomObjectStatus({
        ...coords(),
        name,
        body: { ...read, status },
      })) as KubeObject;
      expect(withStatus.status).toEqual(status);
      expect(withStatus.metadata.generation).toBe(1);
      const mainWrite = (await api.replaceNamespacedCustomObject({
        ...coords(),
        name,
        body: { ...withStatus, status: {} },
      })) as KubeObject;
      expect(mainWrite.status).toEqual(status);

      await api.deleteNamespacedCustomObject({ ...coords(), name });
      await expect(api.getNamespacedCustomObject({ ...coords(), name })).rejects.toMatchObject({
        code: 404,
      });

      await waitFor(
        `the watch to report ${name} deleted`,
        () => events.includes(`DELETED:${name}`),
        {
          timeoutMs: 10_000,
          wakeOn: (changed) => {
            onEvent = changed;
            return () => (onEvent = undefined);
          },
          lastSeen: () => events,
        },
      );
      const seen = events.filter((e) => e.endsWith(name)).map((e) => e.split(':')[0]);
      expect(seen[0]).toBe('ADDED');
      expect(seen).toContain('MODIFIED');
      expect(seen[seen.length - 1]).toBe('DELETED');
    } finally {
      controller.abort();
    }
  });
});

describe('structural schemas', () => {
  const agents = () => ({
    group: API_GROUP,
    version: API_VERSION,
    namespace,
    plural: PLURALS.Agent,
  });

  it('rejects an Agent with a runtime outside the contract enumeration', async () => {
    const body = agentResource(namespace) as unknown as KubeObject;
    body.spec.runtime = 'python';
    await expect(api.createNamespacedCustomObject({ ...agents(), body })).rejects.toMatchObject({
      code: 422,
    });
  });

  it('rejects an Agent name longer than 56 characters or with a doubled hyphen', async () => {
    for (const name of ['a'.repeat(57), 'bad--name']) {
      const body = agentResource(namespace, { name }) as unknown as KubeObject;
      await expect(api.createNamespacedCustomObject({ ...agents(), body })).rejects.toMatchObject({
        code: 422,
      });
    }
  });

  it('prunes fields the schema does not know', async () => {
    const body = agentResource(namespace) as unknown as KubeObject;
    body.spec.notAField = 'x';
    const created = (await api.createNamespacedCustomObject({ ...agents(), body })) as KubeObject;
    expect(created.spec).not.toHaveProperty('notAField');
    expect(created.spec.name).toBe('hello');
  });

  it('keeps nullable fields as null', async () => {
    const body = agentResource(namespace, {
      schedule: null,
      description: null,
    }) as unknown as KubeObject;
    const created = (await api.createNamespacedCustomObject({ ...agents(), body })) as KubeObject;
    expect(created.spec.schedule).toBeNull();
    expect(created.spec.description).toBeNull();
  });
});

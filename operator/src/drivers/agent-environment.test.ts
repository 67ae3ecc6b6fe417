import { describe, expect, it } from '@jest/globals';
import {
  agentDeploymentResource,
  agentResource,
} from '../../../test/factories/custom-resources.js';
import { loadOperatorConfig } from '../config.js';
import {
  ANNOTATIONS,
  OBJECT_NAMES,
  secretDataKey,
  workspaceId,
  workspaceSecretsName,
} from '../../../crds/src/index.js';
import { agentEnv, agentSecretSources, longSecretRefs, vcpusFor } from './agent-environment.js';

const cfg = loadOperatorConfig({ SVC_INTERNAL_SECRET: 'k3Jx9vQ2mZp7Lw4tR8nB1cY6hF0sD5gA' });

describe('agentEnv', () => {
  const agent = agentResource('svc-live-a', { name: 'hello', workspaceName: 'research' });
  const deployment = agentDeploymentResource('svc-live-a', agent.metadata.name);
  const asRecord = (vars: { name: string; value: string }[]) =>
    Object.fromEntries(vars.map((v) => [v.name, v.value]));

  it("gives a service the contract's variables", () => {
    const env = asRecord(agentEnv(agent, deployment, cfg, { mode: 'service' }));
    expect(env).toMatchObject({
      SVC_AGENT_ID: agent.metadata.name,
      SVC_AGENT_NAME: 'hello',
      SVC_DEPLOYMENT_ID: deployment.metadata.name,
      SVC_MEMORY_MB: '256',
      SVC_VCPUS: '1',
      SVC_RUNTIME: 'node22',
      SVC_AGENT_TYPE: 'service',
      SVC_MODE: 'service',
      SVC_ENTRYPOINT: 'index.js',
      SVC_WORKSPACE: 'research',
      SVC_SPAWN_URL: `${cfg.publicApiUrl}/api/v1/agents/${agent.metadata.name}/spawn`,
      PORT: '8080',
    });
    expect(env.SVC_SPAWN_ID).toBeUndefined();
  });

  it('names the run, and the spawn when the run was spawned', () => {
    const runId = 'b2a3c4d5-0000-4000-8000-000000000002';
    const env = asRecord(
      agentEnv(agent, deployment, cfg, { mode: 'run', runDeploymentId: runId, spawned: true }),
    );
    expect(env).toMatchObject({ SVC_MODE: 'run', SVC_DEPLOYMENT_ID: runId, SVC_SPAWN_ID: runId });
  });
});

describe('vcpusFor', () => {
  it('gives one vCPU per 2 GiB, at least one', () => {
    expect([128, 2048, 2049, 8192].map(vcpusFor)).toEqual([1, 1, 2, 4]);
  });
});

describe('agentSecretSources', () => {
  it("lists the workspace's Secret before the agent's own, so the agent's own wins on a shared key", () => {
    const agent = agentResource('svc-live-a', { name: 'hello', workspaceName: 'research' });
    expect(agentSecretSources(agent)).toEqual([
      workspaceSecretsName(workspaceId('svc-live-a', 'research')),
      OBJECT_NAMES.agentSecrets(agent.metadata.name ?? ''),
    ]);
  });

  it("lists only the agent's own Secret when it is in no workspace", () => {
    const agent = agentResource('svc-live-a', { name: 'loner', workspaceName: null });
    expect(agentSecretSources(agent)).toEqual([
      OBJECT_NAMES.agentSecrets(agent.metadata.name ?? ''),
    ]);
  });
});

describe('longSecretRefs', () => {
  const long = (c: string) => `${c}${'K'.repeat(254)}`;

  it("names the agent's and its workspace's long keys, the workspace's first", () => {
    const agent = agentResource('svc-live-a', { name: 'hello', workspaceName: 'research' });
    agent.metadata.annotations = {
      [ANNOTATIONS.longSecretKeys]: JSON.stringify([long('A')]),
      [ANNOTATIONS.workspaceLongSecretKeys]: JSON.stringify([long('W')]),
    };
    expect(longSecretRefs(agent)).toEqual([
      {
        name: long('W'),
        secretName: workspaceSecretsName(workspaceId('svc-live-a', 'research')),
        dataKey: secretDataKey(long('W')),
      },
      {
        name: long('A'),
        secretName: OBJECT_NAMES.agentSecrets(agent.metadata.name ?? ''),
        dataKey: secretDataKey(long('A')),
      },
    ]);
  });

  it("ignores a workspace's keys for an agent in none, and anything that is not a variable name", () => {
    const agent = agentResource('svc-live-a', { name: 'solo' });
    agent.metadata.annotations = {
      [ANNOTATIONS.longSecretKeys]: JSON.stringify([long('A'), 'not-a-name', 42]),
      [ANNOTATIONS.workspaceLongSecretKeys]: JSON.stringify([long('W')]),
    };
    expect(longSecretRefs(agent).map((r) => r.name)).toEqual([long('A')]);
    agent.metadata.annotations = { [ANNOTATIONS.longSecretKeys]: '{not json' };
    expect(longSecretRefs(agent)).toEqual([]);
  });
});

/** stop, start, archive, restore, status and yaml of an agent. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { parse } from 'yaml';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../control-plane-server.js';
import { createAgentPod, readAgent, setAgentStatus, untilServerSees } from './operator-view.js';

let server: TestServer;
let owner: Caller;
let stranger: Caller;

type Agent = { id: string; name: string };
type Detail = { detail: { code: string } & Record<string, unknown> };

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server, { tier: 'starter' });
  stranger = await createCaller(server);
});

afterAll(async () => {
  await server.close();
});

async function newAgent(name: string, extra: Record<string, unknown> = {}): Promise<Agent> {
  const res = await call<Agent>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function deployedAgent(name: string): Promise<Agent> {
  const agent = await newAgent(name);
  await setAgentStatus(server.kc, owner.namespace, agent.id, {
    status: 'running',
    deployed: true,
    url: `http://${name}-abc123.agents.localhost`,
  });
  // The API server reads agents from its watch cache: act once it has seen the status.
  await untilServerSees(server, owner.key, owner.namespace, agent.id, {
    status: 'running',
    deployed: true,
  });
  return agent;
}

const act = (ref: string, action: string, key: string | null = owner.key) =>
  call<Detail & Record<string, unknown>>(server, 'POST', `/api/v1/agents/${ref}/${action}`, {
    key,
  });

describe.each(['stop', 'start', 'archive', 'restore'])(
  'POST /api/v1/agents/{agent}/%s',
  (action) => {
    it('returns 401 without a key', async () => {
      expect((await act('anything', action, null)).status).toBe(401);
    });

    it("returns 404 AGENT_NOT_FOUND for another account's agent", async () => {
      const agent = await deployedAgent(`${action}-foreign`);
      const res = await act(agent.id, action, stranger.key);
      expect(res.status).toBe(404);
      expect(res.body.detail.code).toBe('AGENT_NOT_FOUND');
    });
  },
);

describe('lifecycle actions', () => {
  it('returns 409 AGENT_NOT_DEPLOYED for stop, start and archive of an agent never deployed', async () => {
    await newAgent('never-deployed');
    for (const action of ['stop', 'start', 'archive']) {
      const res = await act('never-deployed', action);
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatchObject({
        code: 'AGENT_NOT_DEPLOYED',
        current_state: 'pending',
      });
    }
  });

  it('returns 409 AGENT_STATE_CONFLICT for restore of an agent that is not archived', async () => {
    const agent = await deployedAgent('not-archived');
    const res = await act(agent.id, 'restore');
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatchObject({
      code: 'AGENT_STATE_CONFLICT',
      current_state: 'running',
    });
  });

  it('stops with 202 and the label paused, then starts with 202', async () => {
    const agent = await deployedAgent('stop-start');
    const stopped = await act('stop-start', 'stop');
    expect(stopped.status).toBe(202);
    expect(stopped.body).toEqual({ id: agent.id, name: 'stop-start', status: 'paused' });
    expect((await readAgent(server.kc, owner.namespace, agent.id)).spec.desiredState).toBe(
      'paused',
    );
    const started = await act(agent.id, 'start');
    expect(started.status).toBe(202);
    expect(started.body).toEqual({ id: agent.id, name: 'stop-start', status: 'starting' });
    expect((await readAgent(server.kc, owner.namespace, agent.id)).spec.desiredState).toBe(
      'running',
    );
  });

  it('archives with 202 archiving, refuses stop and start while archived, restores with 202 restoring', async () => {
    const agent = await deployedAgent('archive-me');
    const archived = await act(agent.id, 'archive');
    expect(archived.status).toBe(202);
    expect(archived.body).toMatchObject({ status: 'archiving' });
    expect((await readAgent(server.kc, owner.namespace, agent.id)).spec.desiredState).toBe(
      'archived',
    );
    for (const action of ['stop', 'start', 'archive']) {
      expect((await act(agent.id, action)).body.detail).toMatchObject({
        code: 'AGENT_STATE_CONFLICT',
      });
    }
    // The operator reports the archive done: the agent no longer holds a running app.
    await setAgentStatus(server.kc, owner.namespace, agent.id, {
      status: 'archived',
      deployed: false,
    });
    const restored = await act(agent.id, 'restore');
    expect(restored.status).toBe(202);
    expect(restored.body).toMatchObject({ status: 'restoring' });
    expect((await readAgent(server.kc, owner.namespace, agent.id)).spec.desiredState).toBe(
      'running',
    );
  });
});

describe('GET /api/v1/agents/{agent}/status', () => {
  it('returns 401 without a key and 404 for a foreign agent', async () => {
    const agent = await newAgent('status-auth');
    expect((await call(server, 'GET', `/api/v1/agents/${agent.id}/status`)).status).toBe(401);
    expect(
      (await call(server, 'GET', `/api/v1/agents/${agent.id}/status`, { key: stranger.key }))
        .status,
    ).toBe(404);
  });

  it('returns no machines and a null url for an agent that has none', async () => {
    const agent = await newAgent('status-empty');
    const res = await call(server, 'GET', '/api/v1/agents/status-empty/status', { key: owner.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      agent_id: agent.id,
      name: 'status-empty',
      status: 'pending',
      url: null,
      machines: [],
    });
  });

  it('reads machines live from the cluster', async () => {
    const agent = await deployedAgent('status-live');
    await createAgentPod(server.kc, owner.namespace, agent.id, 'status-live-0');
    const res = await call<{ machines: unknown[]; status: string; url: string }>(
      server,
      'GET',
      `/api/v1/agents/${agent.id}/status`,
      { key: owner.key },
    );
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('running');
    expect(res.body.url).toBe('http://status-live-abc123.agents.localhost');
    expect(res.body.machines).toEqual([
      {
        id: 'status-live-0',
        region: 'local',
        state: 'pending',
        source: 'live',
        health: null,
        last_check: expect.stringMatching(/^\d{4}-/),
        instance_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ]);
  });

  it('falls back to the stored machines, marked cached, when the live read fails', async () => {
    const agent = await deployedAgent('status-cached');
    await setAgentStatus(server.kc, owner.namespace, agent.id, {
      status: 'running',
      deployed: true,
      machines: [
        {
          id: 'm-1',
          region: 'local',
          state: 'started',
          health: 'passing',
          lastCheck: '2026-01-01T00:00:00Z',
          instanceId: 'i-1',
        },
      ],
    });
    // A server whose cluster identity may read agents but not pods: the live read is refused.
    const limited = await startControlPlaneServer({
      kc: await agentsOnlyKubeConfig(owner.namespace),
      shareWith: server,
    });
    try {
      const res = await call<{ machines: unknown[] }>(
        limited,
        'GET',
        `/api/v1/agents/${agent.id}/status`,
        {
          key: owner.key,
        },
      );
      expect(res.status).toBe(200);
      expect(res.body.machines).toEqual([
        {
          id: 'm-1',
          region: 'local',
          state: 'started',
          source: 'cached',
          health: 'passing',
          last_check: '2026-01-01T00:00:00Z',
          instance_id: 'i-1',
        },
      ]);
    } finally {
      await limited.close();
    }
  });
});

describe('GET /api/v1/agents/{agent}/yaml', () => {
  it('returns 401 without a key and 404 for a foreign agent', async () => {
    await newAgent('yaml-auth');
    expect((await call(server, 'GET', '/api/v1/agents/yaml-auth/yaml')).status).toBe(401);
    expect(
      (await call(server, 'GET', '/api/v1/agents/yaml-auth/yaml', { key: stranger.key })).status,
    ).toBe(404);
  });

  it("returns the agent's settings as svc.yaml", async () => {
    await newAgent('yaml-agent', { runtime: 'node22', agent_type: 'job', memory_mb: 512 });
    const res = await call(server, 'GET', '/api/v1/agents/yaml-agent/yaml', { key: owner.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(parse(res.text)).toEqual({
      name: 'yaml-agent',
      runtime: 'node22',
      type: 'job',
      entrypoint: 'index.js',
      memory_mb: 512,
      regions: ['local'],
    });
  });
});

/** A kubeconfig for a service account allowed to read agents in `namespace` and nothing else. */
async function agentsOnlyKubeConfig(namespace: string): Promise<KubeConfig> {
  const core = server.kc.makeApiClient(CoreV1Api);
  const rbac = server.kc.makeApiClient(RbacAuthorizationV1Api);
  const name = 'agents-reader';
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name },
      rules: [{ apiGroups: ['svc.dev'], resources: ['agents'], verbs: ['get', 'list'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  });
  const token = await core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = server.kc.getCurrentCluster();
  if (!cluster) throw new Error('no cluster');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name, token: token.status?.token }],
    contexts: [{ name, cluster: cluster.name, user: name }],
    currentContext: name,
  });
  return kc;
}

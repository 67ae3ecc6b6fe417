/**
 * The keys injected into agents (SVC_API_KEY, one per deployment), against
 * the real API server, operator, kube-apiserver and MongoDB: a key acts on its
 * own agent only, and stops working once its deployment no longer serves or
 * its agent is deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LABELS } from '../../crds/src/index.js';
import { createLogger } from '../../common/logger.js';
import { DeploymentKeyReaper } from '../../apiserver/src/deploy/deployment-keys.js';
import { CustomResourceRepository } from '../../apiserver/src/store/custom-resources.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import type { Deployment, Detail } from '../apiserver/deploy/deploy-helpers.js';
import { AgentFlow, type AgentRecord } from './agent-flow.js';
import { eventually, finishPods, startOperator, type RunningOperator } from './operator-harness.js';

let server: TestServer;
let operator: RunningOperator;
let reaper: DeploymentKeyReaper;
let flow: AgentFlow;

beforeAll(async () => {
  server = await startControlPlaneServer();
  const owner = await createCaller(server, { tier: 'starter' });
  flow = new AgentFlow(server, owner, 'keys');
  operator = await startOperator(server.kc, (ns) => ns === owner.namespace);
  reaper = new DeploymentKeyReaper(
    server.kc,
    server.accounts,
    new CustomResourceRepository(server.kc, 'AgentDeployment'),
    createLogger('apiserver', 'silent'),
  );
  // No pods really run here, so there is no shutdown to wait for.
  await reaper.start({ graceMs: 0 });
});

afterAll(async () => {
  await reaper.stop();
  await operator.stop();
  await server.close();
});

type ErrorBody = Detail & { items?: { id: string }[] };
const get = (key: string, path: string) => call<ErrorBody>(server, 'GET', path, { key });
const statusWith = async (key: string, path: string) => (await get(key, path)).status;

describe("an agent's deployment key", () => {
  let self: AgentRecord;
  let other: AgentRecord;
  let selfKey: string;
  let otherDeployment: Deployment;

  beforeAll(async () => {
    other = await flow.newAgent({ agent_type: 'job' });
    self = await flow.newAgent({ spawn_enabled: true, allowed_workers: [other.name] });
    otherDeployment = await flow.deployActive(other);
    selfKey = await flow.deploymentKey(await flow.deploy(self));
  });

  it('reads its own agent, by id and by name', async () => {
    expect(await statusWith(selfKey, `/api/v1/agents/${self.id}`)).toBe(200);
    expect(await statusWith(selfKey, `/api/v1/agents/${self.name}/deployments`)).toBe(200);
  });

  it('cannot read another agent of the same account: 404 AGENT_NOT_FOUND', async () => {
    for (const ref of [other.id, other.name]) {
      for (const path of ['', '/deployments', '/logs', '/runs', '/status', '/yaml']) {
        const res = await get(selfKey, `/api/v1/agents/${ref}${path}`);
        expect([path, res.status, res.body.detail?.code]).toEqual([path, 404, 'AGENT_NOT_FOUND']);
      }
    }
    const run = await call<ErrorBody>(server, 'POST', `/api/v1/agents/${other.id}/run`, {
      key: selfKey,
      body: { payload: null },
    });
    expect([run.status, run.body.detail.code]).toEqual([404, 'AGENT_NOT_FOUND']);
    const removed = await call<ErrorBody>(server, 'DELETE', `/api/v1/agents/${other.id}`, {
      key: selfKey,
    });
    expect([removed.status, removed.body.detail.code]).toEqual([404, 'AGENT_NOT_FOUND']);
  });

  it("cannot read another agent's deployment: 404 DEPLOYMENT_NOT_FOUND", async () => {
    for (const path of ['', '/payload']) {
      const res = await get(selfKey, `/api/v1/deployments/${otherDeployment.id}${path}`);
      expect([res.status, res.body.detail.code]).toEqual([404, 'DEPLOYMENT_NOT_FOUND']);
    }
    // The account's key sees it.
    expect(await statusWith(flow.owner.key, `/api/v1/deployments/${otherDeployment.id}`)).toBe(200);
  });

  it('lists only its own agent and its deployments', async () => {
    const agents = await get(selfKey, '/api/v1/agents');
    expect(agents.status).toBe(200);
    expect(agents.body.items?.map((a) => a.id)).toEqual([self.id]);
    const deployments = await get(selfKey, '/api/v1/deployments');
    expect(deployments.body.items?.map((d) => d.id)).not.toContain(otherDeployment.id);
    expect(deployments.body.items?.length).toBeGreaterThan(0);
    const filtered = await get(selfKey, `/api/v1/deployments?agent_id=${other.id}`);
    expect(filtered.body.items).toEqual([]);
  });

  it('cannot create agents: 403 AGENT_KEY_FORBIDDEN', async () => {
    const res = await call<ErrorBody>(server, 'POST', '/api/v1/agents', {
      key: selfKey,
      body: { name: 'made-by-an-agent' },
    });
    expect([res.status, res.body.detail.code]).toEqual([403, 'AGENT_KEY_FORBIDDEN']);
  });

  it('spawns an allowed worker and follows the run it spawned', async () => {
    const spawn = await call<{ spawn_id: string; child_agent_id: string }>(
      server,
      'POST',
      `/api/v1/agents/${self.id}/spawn`,
      { key: selfKey, body: { child_agent_id: other.name, payload: { n: 1 } } },
    );
    expect(spawn.status).toBe(202);
    expect(spawn.body.child_agent_id).toBe(other.id);
    expect(await statusWith(selfKey, `/api/v1/deployments/${spawn.body.spawn_id}`)).toBe(200);
    // The child reads its payload with its own key.
    const childKey = await flow.deploymentKey(otherDeployment);
    const payload = await get(childKey, `/api/v1/deployments/${spawn.body.spawn_id}/payload`);
    expect([payload.status, payload.body]).toEqual([
      200,
      { deployment_id: spawn.body.spawn_id, payload: { n: 1 } },
    ]);
  });
});

describe('revocation', () => {
  const agentPath = (agent: AgentRecord) => `/api/v1/agents/${agent.id}`;
  const revoked = (key: string, agent: AgentRecord) =>
    eventually(
      () => get(key, agentPath(agent)),
      (res) => res.status === 401,
      'key revoked',
    );

  it("answers 401 INVALID_API_KEY with the old deployment's key once a redeploy is active", async () => {
    const agent = await flow.newAgent();
    const first = await flow.deployActive(agent);
    const firstKey = await flow.deploymentKey(first);
    expect(await statusWith(firstKey, agentPath(agent))).toBe(200);

    const second = await flow.deployActive(agent);
    const secondKey = await flow.deploymentKey(second);
    await flow.waitState(first.id, 'superseded');
    const res = await revoked(firstKey, agent);
    expect(res.body.detail.code).toBe('INVALID_API_KEY');
    expect(await statusWith(secondKey, agentPath(agent))).toBe(200);

    // A rollback is a new deployment with a key of its own; the version it replaces loses its.
    const rollback = await call<Deployment>(
      server,
      'POST',
      `/api/v1/agents/${agent.id}/deployments/${first.version}/rollback`,
      { key: flow.owner.key },
    );
    expect(rollback.status).toBe(202);
    await flow.finishBuild(rollback.body);
    await flow.serveReady(agent, rollback.body);
    await flow.waitState(rollback.body.id, 'active');
    const rollbackKey = await flow.deploymentKey(rollback.body);
    expect(rollbackKey).not.toBe(firstKey);
    await revoked(secondKey, agent);
    expect(await statusWith(rollbackKey, agentPath(agent))).toBe(200);
  });

  it("keeps a superseded version's key while a run of it is in flight, then revokes it", async () => {
    const agent = await flow.newAgent({ agent_type: 'job' });
    const first = await flow.deployActive(agent);
    const firstKey = await flow.deploymentKey(first);
    const run = await call<{ deployment_id: string }>(server, 'POST', `${agentPath(agent)}/run`, {
      key: flow.owner.key,
      body: { payload: null },
    });
    expect(run.status).toBe(202);
    await flow.waitState(run.body.deployment_id, 'deploying');

    await flow.deployActive(agent);
    await flow.waitState(first.id, 'superseded');
    // The run still reads its payload with the key of the version it runs.
    const payload = await get(firstKey, `/api/v1/deployments/${run.body.deployment_id}/payload`);
    expect(payload.status).toBe(200);

    await finishPods(
      server.kc,
      flow.owner.namespace,
      `${LABELS.deploymentId}=${run.body.deployment_id},${LABELS.component}=run`,
      { succeeded: true },
    );
    await flow.waitState(run.body.deployment_id, 'completed');
    await revoked(firstKey, agent);
  });

  it('answers 401 with every key of a deleted agent, at once', async () => {
    const agent = await flow.newAgent({ agent_type: 'job' });
    const first = await flow.deployActive(agent);
    const second = await flow.deploy(agent);
    const keys = [await flow.deploymentKey(first), await flow.deploymentKey(second)];
    for (const key of keys) expect(await statusWith(key, agentPath(agent))).toBe(200);

    const removed = await call(server, 'DELETE', agentPath(agent), { key: flow.owner.key });
    expect(removed.status).toBe(202);
    for (const key of keys) {
      const res = await get(key, '/api/v1/agents');
      expect([res.status, res.body.detail.code]).toEqual([401, 'INVALID_API_KEY']);
    }
  });
});

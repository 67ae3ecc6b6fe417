/** Runs, schedules and spawns through the HTTP API, against the real kube-apiserver and FerretDB. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { OBJECT_NAMES } from '../../../crds/src/index.js';
import { PYTHON_SERVICE } from '../../factories/archives.js';
import {
  readAgent,
  setAgentStatus,
  setDeploymentStatus,
  untilServerSees,
} from '../agents/operator-view.js';
import { resourceChanges, waitFor } from '../../harness/wait.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../control-plane-server.js';
import { deployFiles, type Deployment, type Detail } from '../deploy/deploy-helpers.js';

let server: TestServer;
let owner: Caller;
let stranger: Caller;
let counter = 0;

beforeAll(async () => {
  server = await startControlPlaneServer({
    plansJson: JSON.stringify({ starter: { runsInFlight: 2 } }),
  });
  owner = await createCaller(server, { tier: 'starter' });
  stranger = await createCaller(server);
});

afterAll(async () => {
  await server.close();
});

/** An agent with an active version, as the operator would report it. */
async function deployedAgent(
  extra: Record<string, unknown> = {},
  files: Record<string, string> = { 'main.py': 'print(1)\n' },
) {
  const name = `run-${++counter}`;
  const created = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name, agent_type: 'job', ...extra },
  });
  expect(created.status).toBe(201);
  const d = (await deployFiles(server, owner.key, name, files)).body;
  await setAgentStatus(server.kc, owner.namespace, created.body.id, {
    status: 'running',
    deployed: true,
    activeDeploymentId: d.id,
    activeVersion: 1,
  });
  await untilServerSees(server, owner.key, owner.namespace, created.body.id, {
    status: 'running',
    deployed: true,
  });
  return { id: created.body.id, name, deployment: d };
}

const run = (
  agent: string,
  body?: unknown,
  key: string | null = owner.key,
  headers?: Record<string, string>,
) =>
  call<Record<string, unknown> & Detail>(server, 'POST', `/api/v1/agents/${agent}/run`, {
    key,
    body,
    headers,
  });

describe('POST /api/v1/agents/{agent}/run', () => {
  it('returns 401 without a key, 422 for a payload that is not an object, 404 for a foreign agent', async () => {
    const agent = await deployedAgent();
    expect((await run(agent.id, {}, null)).status).toBe(401);
    expect((await run(agent.id, { payload: [1, 2] })).status).toBe(422);
    expect((await run(agent.id, { payload: 'text' })).status).toBe(422);
    expect((await run(agent.id, {}, stranger.key)).body.detail.code).toBe('AGENT_NOT_FOUND');
  });

  it("runs a version whose deployment is active before the operator has written the agent's status", async () => {
    const name = `run-${++counter}`;
    const created = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
      key: owner.key,
      body: { name, agent_type: 'job' },
    });
    expect(created.status).toBe(201);
    const d = (await deployFiles(server, owner.key, name, { 'main.py': 'print(1)\n' })).body;
    // Not active yet, and the agent's status names nothing: 409.
    expect((await run(name, {})).body.detail.code).toBe('AGENT_NOT_DEPLOYED');
    // The operator marks the deployment active; the agent's status is still to come.
    await setDeploymentStatus(server.kc, owner.namespace, d.id, { state: 'active' });
    // Once the API server's watch cache has it (it was written behind its back).
    await waitFor(
      `the API server to see deployment ${d.id} active`,
      async () =>
        (
          await call<{ state: string }>(server, 'GET', `/api/v1/deployments/${d.id}`, {
            key: owner.key,
          })
        ).body.state === 'active',
      { wakeOn: resourceChanges(server.kc, 'AgentDeployment', owner.namespace) },
    );
    const res = await run(name, {});
    expect(res.status).toBe(202);
  });

  it('returns 409 AGENT_NOT_DEPLOYED for an agent without an active version', async () => {
    const created = await call(server, 'POST', '/api/v1/agents', {
      key: owner.key,
      body: { name: 'never-run', agent_type: 'job' },
    });
    expect(created.status).toBe(201);
    const res = await run('never-run', {});
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe('AGENT_NOT_DEPLOYED');
  });

  it('accepts a run with 202 RunAccepted; the run reads its payload back; it is listed as manual', async () => {
    const agent = await deployedAgent();
    const res = await run(agent.name, { payload: { city: 'Oslo', n: 3 } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      deployment_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      version: 1,
      job_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const id = res.body.deployment_id as string;
    expect(
      (await call(server, 'GET', `/api/v1/deployments/${id}/payload`, { key: owner.key })).body,
    ).toEqual({
      deployment_id: id,
      payload: { city: 'Oslo', n: 3 },
    });
    const d = (
      await call<Deployment>(server, 'GET', `/api/v1/deployments/${id}`, { key: owner.key })
    ).body;
    expect(d).toMatchObject({ is_ephemeral: true, can_rollback: false, state: 'queued' });
    const runs = await call<{ items: Array<Record<string, unknown>>; total: number }>(
      server,
      'GET',
      `/api/v1/agents/${agent.id}/runs`,
      { key: owner.key },
    );
    expect(runs.body.total).toBe(1);
    expect(runs.body.items[0]).toEqual({
      id,
      trigger_source: 'manual',
      state: 'queued',
      created_at: expect.stringMatching(/^\d{4}-/),
      error_message: null,
      machine_started_at: null,
      machine_stopped_at: null,
      duration_seconds: null,
    });
    // Runs are not deployed versions.
    const versions = await call<{ total: number }>(
      server,
      'GET',
      `/api/v1/agents/${agent.id}/deployments`,
      { key: owner.key },
    );
    expect(versions.body.total).toBe(1);
  });

  it("records trigger_source cron only for the agent's own key with X-Svc-Trigger: cron", async () => {
    const agent = await deployedAgent();
    const secret = await server.kc.makeApiClient(CoreV1Api).readNamespacedSecret({
      namespace: owner.namespace,
      name: OBJECT_NAMES.deploymentKeySecret(agent.deployment.id),
    });
    const agentKey = Buffer.from(secret.data?.SVC_API_KEY ?? '', 'base64').toString();
    await run(agent.id, {}, agentKey, { 'x-svc-trigger': 'cron' });
    await run(agent.id, {}, owner.key, { 'x-svc-trigger': 'cron' });
    const runs = await call<{ items: Array<{ trigger_source: string }> }>(
      server,
      'GET',
      `/api/v1/agents/${agent.id}/runs`,
      { key: owner.key },
    );
    expect(runs.body.items.map((r) => r.trigger_source).sort()).toEqual(['cron', 'manual']);
  });

  it("returns 429 PLAN_LIMIT_EXCEEDED past the plan's runs in flight", async () => {
    const agent = await deployedAgent();
    expect((await run(agent.id, {})).status).toBe(202);
    expect((await run(agent.id, {})).status).toBe(202);
    const res = await run(agent.id, {});
    expect(res.status).toBe(429);
    expect(res.body.detail).toMatchObject({
      code: 'PLAN_LIMIT_EXCEEDED',
      field: 'runs_in_flight',
      allowed: 2,
    });
  });
});

describe('schedule pause and resume', () => {
  it('returns 409 SCHEDULE_NOT_SET for an agent without a schedule', async () => {
    const agent = await deployedAgent();
    const res = await call<Detail>(server, 'POST', `/api/v1/agents/${agent.id}/schedule/pause`, {
      key: owner.key,
    });
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe('SCHEDULE_NOT_SET');
  });

  it('pauses and resumes idempotently; resume computes the next run from now', async () => {
    const agent = await deployedAgent(
      {},
      { 'main.py': 'print(1)\n', 'svc.yaml': 'schedule: "*/10 * * * *"\n' },
    );
    const pause = () =>
      call<Record<string, unknown>>(server, 'POST', `/api/v1/agents/${agent.id}/schedule/pause`, {
        key: owner.key,
      });
    const resume = () =>
      call<Record<string, unknown>>(server, 'POST', `/api/v1/agents/${agent.id}/schedule/resume`, {
        key: owner.key,
      });
    expect((await pause()).body).toEqual({
      cron_paused: true,
      cron_next_run_at: null,
      changed: true,
    });
    expect((await pause()).body).toEqual({
      cron_paused: true,
      cron_next_run_at: null,
      changed: false,
    });
    const before = Date.now();
    const resumed = (await resume()).body;
    const after = Date.now();
    expect(resumed).toMatchObject({ cron_paused: false, changed: true });
    // The next run is the first */10 minute after the resume, which happened between the two.
    const next = Date.parse(String(resumed.cron_next_run_at));
    expect(next).toBeGreaterThan(before);
    expect(next).toBeLessThanOrEqual(after + 10 * 60_000);
    expect(new Date(next).getUTCMinutes() % 10).toBe(0);
    expect((await resume()).body).toMatchObject({ cron_paused: false, changed: false });
    const cr = await readAgent(server.kc, owner.namespace, agent.id);
    expect(cr.spec.schedulePaused).toBe(false);
    expect(cr.spec.scheduleResumedAt).toBeTruthy();
    expect(
      (await call(server, 'GET', `/api/v1/agents/${agent.id}`, { key: owner.key })).body,
    ).toMatchObject({ cron_paused: false });
  });
});

describe('POST /api/v1/agents/{agent}/spawn', () => {
  it('returns 422 without child_agent_id and 403 SPAWN_NOT_ALLOWED when spawning is off or the child is not allowed', async () => {
    const parent = await deployedAgent({ agent_type: 'service' }, { 'main.py': PYTHON_SERVICE });
    const child = await deployedAgent();
    expect(
      (
        await call(server, 'POST', `/api/v1/agents/${parent.id}/spawn`, {
          key: owner.key,
          body: {},
        })
      ).status,
    ).toBe(422);
    const off = await call<Detail>(server, 'POST', `/api/v1/agents/${parent.id}/spawn`, {
      key: owner.key,
      body: { child_agent_id: child.id },
    });
    expect(off.status).toBe(403);
    expect(off.body.detail).toMatchObject({ code: 'SPAWN_NOT_ALLOWED', reason: 'spawn_disabled' });
    await call(server, 'PATCH', `/api/v1/agents/${parent.id}`, {
      key: owner.key,
      body: { spawn_enabled: true, allowed_workers: ['someone-else'] },
    });
    const notAllowed = await call<Detail>(server, 'POST', `/api/v1/agents/${parent.id}/spawn`, {
      key: owner.key,
      body: { child_agent_id: child.name },
    });
    expect(notAllowed.body.detail).toMatchObject({
      code: 'SPAWN_NOT_ALLOWED',
      reason: 'not_allowed_worker',
    });
  });

  it('spawns job children only, in the parent region, excluded from run history', async () => {
    const parent = await deployedAgent(
      { agent_type: 'service', spawn_enabled: true, regions: ['eu-west'] },
      { 'main.py': PYTHON_SERVICE },
    );
    const child = await deployedAgent({ workspace_name: 'crew' });
    const service = await deployedAgent({ agent_type: 'service' }, { 'main.py': PYTHON_SERVICE });
    const refused = await call<Detail>(server, 'POST', `/api/v1/agents/${parent.id}/spawn`, {
      key: owner.key,
      body: { child_agent_id: service.id },
    });
    expect(refused.status).toBe(409);
    const res = await call<Record<string, unknown>>(
      server,
      'POST',
      `/api/v1/agents/${parent.id}/spawn`,
      {
        key: owner.key,
        body: { child_agent_id: child.name, payload: { task: 'x' } },
      },
    );
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      spawn_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      job_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      child_agent_id: child.id,
      workspace: 'crew',
      region: 'eu-west',
      status: 'queued',
      estimated_start: 'immediate',
    });
    expect(
      (
        await call(server, 'GET', `/api/v1/deployments/${String(res.body.spawn_id)}/payload`, {
          key: owner.key,
        })
      ).body,
    ).toMatchObject({
      payload: { task: 'x' },
    });
    const history = await call<{ total: number }>(
      server,
      'GET',
      `/api/v1/agents/${child.id}/runs`,
      { key: owner.key },
    );
    expect(history.body.total).toBe(0);
  });
});

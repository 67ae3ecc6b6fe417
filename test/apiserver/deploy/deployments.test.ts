/** Deployment reads, lists, cancel, rollback, the payload route and archive retention. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AgentDeploymentStatus } from '../../../crds/src/index.js';
import {
  setAgentStatus,
  untilServerSees,
  setDeploymentStatus as writeDeploymentStatus,
} from '../agents/operator-view.js';
import { PYTHON_SERVICE } from '../../factories/archives.js';
import { resourceChanges, waitFor } from '../../harness/wait.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../control-plane-server.js';
import { deployFiles, type Deployment, type Detail } from './deploy-helpers.js';

let server: TestServer;
let owner: Caller;
let stranger: Caller;
let counter = 0;

type Page = {
  items: Deployment[];
  total: number;
  limit: number;
  offset: number;
  next_offset: number | null;
};

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server, { tier: 'starter' });
  stranger = await createCaller(server);
});

afterAll(async () => {
  await server.close();
});

async function newAgent(): Promise<string> {
  const name = `dep-${++counter}`;
  const res = await call(server, 'POST', '/api/v1/agents', { key: owner.key, body: { name } });
  expect(res.status).toBe(201);
  return name;
}

async function deploy(agent: string): Promise<Deployment> {
  const res = await deployFiles(server, owner.key, agent, { 'main.py': PYTHON_SERVICE });
  expect(res.status).toBe(202);
  return res.body;
}

/**
 * Writes a deployment's status as the operator would, then waits (up to 5 s) until the
 * server answers with its state and queue position: the server reads deployments from
 * its watch of the cluster, which sees another writer's change a moment later (the wait
 * checks again on each change a watch of its own sees).
 */
async function setDeploymentStatus(id: string, status: AgentDeploymentStatus): Promise<void> {
  await writeDeploymentStatus(server.kc, owner.namespace, id, status);
  let seen: { state?: string; queue_position?: number | null } | undefined;
  await waitFor(
    `the server to answer deployment ${id} ${status.state}, queue position ${status.queuePosition ?? null}`,
    async () => {
      const res = await call<Deployment>(server, 'GET', `/api/v1/deployments/${id}`, {
        key: owner.key,
      });
      const body = res.body as unknown as NonNullable<typeof seen>;
      seen = body;
      return (
        body.state === status.state &&
        (body.queue_position ?? null) === (status.queuePosition ?? null)
      );
    },
    {
      timeoutMs: 5000,
      wakeOn: resourceChanges(server.kc, 'AgentDeployment', owner.namespace),
      lastSeen: () => ({ state: seen?.state, queue_position: seen?.queue_position }),
    },
  );
}

const built = (state: AgentDeploymentStatus['state']): AgentDeploymentStatus => ({
  state,
  builtAt: '2026-01-01T00:00:00Z',
  deployedAt: '2026-01-01T00:01:00Z',
  ...(state === 'active' ? {} : { finishedAt: '2026-01-02T00:00:00Z' }),
});

describe('GET /api/v1/deployments/{id}', () => {
  it('returns 401 without a key', async () => {
    expect(
      (await call(server, 'GET', '/api/v1/deployments/00000000-0000-4000-8000-000000000000'))
        .status,
    ).toBe(401);
  });

  it("returns 404 DEPLOYMENT_NOT_FOUND for another account's deployment, an unknown id and a malformed one", async () => {
    const d = await deploy(await newAgent());
    for (const [id, key] of [
      [d.id, stranger.key],
      ['00000000-0000-4000-8000-000000000000', owner.key],
      ['not-a-uuid', owner.key],
    ] as const) {
      const res = await call<Detail>(server, 'GET', `/api/v1/deployments/${id}`, { key });
      expect(res.status).toBe(404);
      expect(res.body.detail.code).toBe('DEPLOYMENT_NOT_FOUND');
    }
  });

  it('returns the deployment with queue_position while queued and build progress as the operator reports it', async () => {
    const d = await deploy(await newAgent());
    await setDeploymentStatus(d.id, { state: 'queued', queuePosition: 2 });
    expect(
      (await call<Deployment>(server, 'GET', `/api/v1/deployments/${d.id}`, { key: owner.key }))
        .body,
    ).toMatchObject({
      state: 'queued',
      queue_position: 2,
    });
    await setDeploymentStatus(d.id, {
      state: 'building',
      queuePosition: null,
      startedAt: '2026-01-01T00:00:00Z',
    });
    expect(
      (await call<Deployment>(server, 'GET', `/api/v1/deployments/${d.id}`, { key: owner.key }))
        .body,
    ).toMatchObject({
      state: 'building',
      queue_position: null,
      started_at: '2026-01-01T00:00:00.000Z',
    });
  });
});

describe('deployment lists', () => {
  it('returns 422 for a bad state filter and 404 for a foreign agent', async () => {
    expect(
      (await call(server, 'GET', '/api/v1/deployments?state=sleeping', { key: owner.key })).status,
    ).toBe(422);
    const agent = await newAgent();
    expect(
      (await call(server, 'GET', `/api/v1/agents/${agent}/deployments`, { key: stranger.key }))
        .status,
    ).toBe(404);
  });

  it("lists an agent's versions newest first, paged, and the account's across agents", async () => {
    const a = await newAgent();
    const b = await newAgent();
    for (let i = 0; i < 3; i++) await deploy(a);
    const bId = (await deploy(b)).agent_id;
    const page = await call<Page>(server, 'GET', `/api/v1/agents/${a}/deployments?limit=2`, {
      key: owner.key,
    });
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 0, next_offset: 2 });
    expect(page.body.items.map((d) => d.version)).toEqual([3, 2]);
    const rest = await call<Page>(
      server,
      'GET',
      `/api/v1/agents/${a}/deployments?limit=2&offset=2`,
      {
        key: owner.key,
      },
    );
    expect(rest.body.items.map((d) => d.version)).toEqual([1]);
    expect(rest.body.next_offset).toBeNull();

    const all = await call<Page>(server, 'GET', '/api/v1/deployments?limit=100', {
      key: owner.key,
    });
    expect(all.body.items.length).toBe(all.body.total);
    expect(new Set(all.body.items.map((d) => d.agent_id))).toContain(bId);
    const onlyB = await call<Page>(server, 'GET', `/api/v1/deployments?agent_id=${bId}`, {
      key: owner.key,
    });
    expect(onlyB.body.items.map((d) => [d.agent_id, d.version])).toEqual([[bId, 1]]);
    expect(
      (await call<Page>(server, 'GET', '/api/v1/deployments', { key: stranger.key })).body.total,
    ).toBe(0);
  });
});

describe('POST /api/v1/agents/{agent}/deployments/{version}/cancel', () => {
  it('returns 422 for a version that is not a number or past 2^53 and 404 for an unknown version', async () => {
    const agent = await newAgent();
    await deploy(agent);
    expect(
      (
        await call(server, 'POST', `/api/v1/agents/${agent}/deployments/latest/cancel`, {
          key: owner.key,
        })
      ).status,
    ).toBe(422);
    // A version past 2^53 used to reach the label selector as 9.39e+22 and answer 500.
    for (const action of ['cancel', 'rollback']) {
      const huge = await call<Detail>(
        server,
        'POST',
        `/api/v1/agents/${agent}/deployments/93904022795446440000000/${action}`,
        { key: owner.key },
      );
      expect([action, huge.status, huge.body.detail.code]).toEqual([
        action,
        422,
        'VALIDATION_ERROR',
      ]);
    }
    const res = await call<Detail>(server, 'POST', `/api/v1/agents/${agent}/deployments/9/cancel`, {
      key: owner.key,
    });
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe('DEPLOYMENT_NOT_FOUND');
  });

  it('records the cancellation request and reason with 202', async () => {
    const agent = await newAgent();
    await deploy(agent);
    const res = await call<Deployment>(
      server,
      'POST',
      `/api/v1/agents/${agent}/deployments/1/cancel`,
      {
        key: owner.key,
        body: { reason: 'wrong branch' },
      },
    );
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      version: 1,
      cancellation_requested: true,
      cancellation_reason: 'wrong branch',
    });
    const bare = await call<Deployment>(
      server,
      'POST',
      `/api/v1/agents/${agent}/deployments/1/cancel`,
      { key: owner.key },
    );
    expect(bare.status).toBe(202);
  });

  it('returns 409 DEPLOYMENT_NOT_CANCELLABLE for a deployment that finished', async () => {
    const agent = await newAgent();
    const d = await deploy(agent);
    await setDeploymentStatus(d.id, {
      state: 'failed',
      errorMessage: 'build failed',
      finishedAt: '2026-01-01T00:00:00Z',
    });
    const res = await call<Detail>(server, 'POST', `/api/v1/agents/${agent}/deployments/1/cancel`, {
      key: owner.key,
    });
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatchObject({
      code: 'DEPLOYMENT_NOT_CANCELLABLE',
      current_state: 'failed',
    });
  });
});

describe('POST /api/v1/agents/{agent}/deployments/{version}/rollback', () => {
  it('returns 409 ROLLBACK_NOT_ALLOWED for a version never built and for the active version', async () => {
    const agent = await newAgent();
    const v1 = await deploy(agent);
    let res = await call<Detail>(server, 'POST', `/api/v1/agents/${agent}/deployments/1/rollback`, {
      key: owner.key,
    });
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatchObject({
      code: 'ROLLBACK_NOT_ALLOWED',
      reason: 'it was never built',
    });
    await setDeploymentStatus(v1.id, built('active'));
    res = await call<Detail>(server, 'POST', `/api/v1/agents/${agent}/deployments/1/rollback`, {
      key: owner.key,
    });
    expect(res.body.detail).toMatchObject({
      code: 'ROLLBACK_NOT_ALLOWED',
      reason: 'it is the active version',
    });
  });

  it('deploys a built version again as the next version', async () => {
    const agent = await newAgent();
    const v1 = await deploy(agent);
    const v2 = await deploy(agent);
    await setDeploymentStatus(v1.id, built('superseded'));
    await setDeploymentStatus(v2.id, built('active'));
    const listed = await call<Page>(server, 'GET', `/api/v1/agents/${agent}/deployments`, {
      key: owner.key,
    });
    expect(listed.body.items.find((d) => d.version === 1)).toMatchObject({
      can_rollback: true,
      can_redeploy: true,
    });
    expect(listed.body.items.find((d) => d.version === 2)).toMatchObject({
      can_rollback: false,
      regions_total: 1,
      regions_ready: 1,
    });
    expect(listed.body.items.find((d) => d.version === 1)).toMatchObject({ regions_ready: 0 });

    const res = await call<Deployment>(
      server,
      'POST',
      `/api/v1/agents/${agent}/deployments/1/rollback`,
      { key: owner.key },
    );
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ version: 3, state: 'queued', agent_id: v1.agent_id });
  });
});

describe('rollback and the agent quota', () => {
  it('returns 403 PLAN_LIMIT_EXCEEDED when rolling back an agent that holds no running app would exceed the quota', async () => {
    const limited = await startControlPlaneServer({
      shareWith: server,
      plansJson: JSON.stringify({ free: { agentQuota: 1 } }),
    });
    try {
      const caller = await createCaller(server, { tier: 'free' });
      const names = ['quota-back', 'quota-other'];
      const ids: string[] = [];
      for (const name of names) {
        const res = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
          key: caller.key,
          body: { name },
        });
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      }
      const versions: Deployment[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await deployFiles(server, caller.key, 'quota-back', {
          'main.py': PYTHON_SERVICE,
        });
        expect(res.status).toBe(202);
        versions.push(res.body);
      }
      await writeDeploymentStatus(
        server.kc,
        caller.namespace,
        versions[0]!.id,
        built('superseded'),
      );
      await writeDeploymentStatus(server.kc, caller.namespace, versions[1]!.id, built('active'));
      // quota-back is archived (no running app); quota-other holds the plan's one place.
      await setAgentStatus(server.kc, caller.namespace, ids[0]!, {
        status: 'archived',
        deployed: false,
      });
      await setAgentStatus(server.kc, caller.namespace, ids[1]!, {
        status: 'running',
        deployed: true,
      });
      for (const [id, status] of [
        [ids[0]!, { status: 'archived', deployed: false }],
        [ids[1]!, { status: 'running', deployed: true }],
      ] as const)
        await untilServerSees(limited, caller.key, caller.namespace, id, status);
      const path = '/api/v1/agents/quota-back/deployments/1/rollback';
      const refused = await call<Detail>(limited, 'POST', path, { key: caller.key });
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toMatchObject({
        code: 'PLAN_LIMIT_EXCEEDED',
        field: 'agents',
        allowed: 1,
        tier: 'free',
      });
      await setAgentStatus(server.kc, caller.namespace, ids[1]!, {
        status: 'stopped',
        deployed: false,
      });
      await untilServerSees(limited, caller.key, caller.namespace, ids[1]!, {
        status: 'stopped',
        deployed: false,
      });
      const accepted = await call<Deployment>(limited, 'POST', path, { key: caller.key });
      expect(accepted.status).toBe(202);
      expect(accepted.body).toMatchObject({ version: 3 });
    } finally {
      await limited.close();
    }
  });
});

describe('GET /api/v1/deployments/{id}/payload', () => {
  it('returns 404 for an unknown deployment and a null payload for a deployed version', async () => {
    const d = await deploy(await newAgent());
    expect(
      (
        await call(
          server,
          'GET',
          '/api/v1/deployments/00000000-0000-4000-8000-000000000000/payload',
          { key: owner.key },
        )
      ).status,
    ).toBe(404);
    const res = await call(server, 'GET', `/api/v1/deployments/${d.id}/payload`, {
      key: owner.key,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deployment_id: d.id, payload: null });
  });
});

describe('archive retention', () => {
  it('keeps the archives of the 3 most recent successful deployments (can_redeploy)', async () => {
    const agent = await newAgent();
    const versions: Deployment[] = [];
    for (let i = 0; i < 4; i++) {
      const d = await deploy(agent);
      versions.push(d);
      await setDeploymentStatus(d.id, built(i === 3 ? 'active' : 'superseded'));
    }
    await deploy(agent); // retention runs on each deploy
    const listed = await call<Page>(server, 'GET', `/api/v1/agents/${agent}/deployments`, {
      key: owner.key,
    });
    const byVersion = Object.fromEntries(listed.body.items.map((d) => [d.version, d.can_redeploy]));
    expect(byVersion).toEqual({ 1: false, 2: true, 3: true, 4: true, 5: true });
    expect(listed.body.items.find((d) => d.version === 1)?.can_rollback).toBe(false);
  });
});

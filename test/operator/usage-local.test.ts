/**
 * Usage metering end to end on one machine: the operator's local driver runs a
 * real Python service and job, the edge carries requests to the service, and
 * the usage routes answer from the events recorded as that happened. A
 * service that answers 50 requests and a job run twice give events and a
 * summary whose counts match what the test did and whose seconds match the
 * wall time it saw (a run's exactly its machine's; a service's between its
 * first answer and the stop, and at most a second beyond the moments it was
 * seen unbuilt and seen stopped); the events outlive the server that
 * wrote them; another account's agent is 404; no key or token is in any
 * usage response.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { createLogger } from '../../common/logger.js';
import { AgentIndex } from '../../apiserver/src/edge/agent-index.js';
import { createEdgeServer } from '../../apiserver/src/edge/edge-server.js';
import {
  call as rawCall,
  createCaller,
  startControlPlaneServer,
  type ApiResponse,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { deployFiles, type Deployment } from '../apiserver/deploy/deploy-helpers.js';
import { startLocalOperator, type LocalOperator } from './local-operator.js';
import { eventually } from './operator-harness.js';
import { getThroughEdge } from '../factories/edge-request.js';

jest.setTimeout(300_000);

const DOMAIN = 'agents.localtest';
type Totals = {
  events: number;
  count: number;
  seconds: number;
  mb_seconds: number;
  bytes: number;
};
type Summary = {
  account_id: string;
  period: { from: string; to: string; current: boolean };
  totals: Record<string, Totals>;
  agents: Array<{ agent_id: string; totals: Record<string, Totals> }>;
  limits: Array<{ metric: string; used: number; limit: number | null; exceeded: boolean }>;
};
type UsageEvent = {
  id: string;
  kind: string;
  agent_id: string;
  deployment_id: string | null;
  started_at: string;
  ended_at: string;
  count: number;
  seconds: number;
  memory_mb: number;
  mb_seconds: number;
  bytes: number;
};
type EventPage = { agent_id: string; events: UsageEvent[]; next_cursor: string | null };
type Detail = { detail: { code: string } };
type RunRecord = { id: string; machine_started_at: string; machine_stopped_at: string };

let server: TestServer;
let owner: Caller;
let stranger: Caller;
let operator: LocalOperator;
let index: AgentIndex;
let edge: Server;
let edgePort: number;
/** Requests the test made with the owner's account key (each one is control-plane usage). */
let accountKeyCalls = 0;
/** Every usage response body, for the sweep for keys and tokens. */
const usageBodies: string[] = [];

async function call<T>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
  accountKeyCalls++;
  const res = await rawCall<T>(server, method, path, { key: owner.key, body });
  if (path.startsWith('/api/v1/usage/')) usageBodies.push(res.text);
  return res;
}

function viaEdge(url: string): Promise<{ status: number; text: string }> {
  return getThroughEdge(url, '127.0.0.1', edgePort);
}

async function deployAndWait(name: string, agentType: string, files: Record<string, string>) {
  expect(
    (await call('POST', '/api/v1/agents', { name, agent_type: agentType, memory_mb: 256 })).status,
  ).toBe(201);
  accountKeyCalls++;
  const d = (await deployFiles(server, owner.key, name, files)).body;
  let lastBuilding = Date.now();
  const active = await eventually(
    async () => {
      const asked = Date.now();
      const seen = (await call<Deployment>('GET', `/api/v1/deployments/${d.id}`)).body;
      // Until it is built, no process of the version runs: its machine starts later.
      if (['queued', 'building'].includes(seen.state)) lastBuilding = asked;
      return seen;
    },
    (x) => ['active', 'failed'].includes(x.state),
    `${name} deployed`,
    120_000,
  );
  expect(active.state).toBe('active');
  return { active, lastBuilding };
}

async function allEvents(agent: string, query = ''): Promise<UsageEvent[]> {
  const events: UsageEvent[] = [];
  let cursor: string | null = null;
  do {
    const sep = query ? '&' : '';
    const page: ApiResponse<EventPage> = await call<EventPage>(
      'GET',
      `/api/v1/usage/agent/${agent}/events?limit=2${sep}${query}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(page.status).toBe(200);
    events.push(...page.body.events);
    cursor = page.body.next_cursor;
  } while (cursor);
  return events;
}

const ms = (iso: string) => Date.parse(iso);

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server, { tier: 'enterprise' });
  stranger = await createCaller(server, { tier: 'enterprise' });
  operator = await startLocalOperator(server, (ns) => ns === owner.namespace, {
    overrides: { agentDomain: DOMAIN },
  });
  index = new AgentIndex(server.kc, createLogger('apiserver', 'silent'));
  await index.start();
  edge = createEdgeServer({
    domain: DOMAIN,
    index,
    log: createLogger('edge', 'silent'),
    usage: server.usage!.writer,
  });
  await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
  edgePort = (edge.address() as AddressInfo).port;
}, 120_000);

afterAll(async () => {
  edge?.close();
  await index?.stop();
  await operator?.stop();
  await server?.close();
});

describe('usage metering on one machine', () => {
  const wall = {
    deployRequested: 0,
    lastBuilding: 0,
    firstAnswer: 0,
    stopRequested: 0,
    stopDone: 0,
    stopSeen: 0,
  };
  let service: Deployment;
  const runs: Deployment[] = [];
  let summary: Summary;

  it('records a service that answered 50 requests, from its machine start to its stop', async () => {
    wall.deployRequested = Date.now();
    const deployed = await deployAndWait('meter-svc', 'service', {
      'main.py': [
        'async def app(scope, receive, send):',
        '    await send({"type": "http.response.start", "status": 200, "headers": []})',
        '    await send({"type": "http.response.body", "body": b"metered"})',
        '',
      ].join('\n'),
    });
    service = deployed.active;
    wall.lastBuilding = deployed.lastBuilding;
    const agent = await eventually(
      () => call<{ url: string | null }>('GET', '/api/v1/agents/meter-svc'),
      (r) => r.body.url !== null,
      'meter-svc has its address',
    );
    const url = agent.body.url!;
    for (let i = 0; i < 50; i++) {
      const answer = await viaEdge(url);
      expect(answer).toEqual({ status: 200, text: 'metered' });
      if (i === 0) wall.firstAnswer = Date.now();
    }
    wall.stopRequested = Date.now();
    expect((await call('POST', '/api/v1/agents/meter-svc/stop')).status).toBe(202);
    // The operator clears the Agent's endpoint once the driver has stopped the process.
    const agents = new CustomResourceClient(server.kc);
    await eventually(
      () => agents.get('Agent', owner.namespace, service.agent_id),
      (a) => a !== null && !a.status?.endpoint,
      'meter-svc stopped',
    );
    wall.stopDone = Date.now();
    const compute = await eventually(
      () => allEvents('meter-svc', 'kind=compute'),
      (events) => events.length > 0,
      'the service machine reported',
    );
    wall.stopSeen = Date.now();
    expect(compute).toHaveLength(1);
    const machine = compute[0]!;
    expect(machine).toMatchObject({ deployment_id: service.id, memory_mb: 256, count: 1 });
    // The machine started after the deploy was asked for and before it first answered,
    // and stopped after the stop was asked for and before the stop was seen done.
    expect(ms(machine.started_at)).toBeGreaterThanOrEqual(wall.deployRequested);
    expect(ms(machine.started_at)).toBeLessThanOrEqual(wall.firstAnswer);
    expect(ms(machine.ended_at)).toBeGreaterThanOrEqual(wall.stopRequested);
    expect(ms(machine.ended_at)).toBeLessThanOrEqual(wall.stopDone);
    expect(ms(machine.ended_at) - wall.stopRequested).toBeLessThan(1000);
    expect(machine.seconds).toBeCloseTo((ms(machine.ended_at) - ms(machine.started_at)) / 1000, 2);
    expect(machine.mb_seconds).toBeCloseTo(machine.seconds * 256, 0);
  });

  it('records a job run twice: two runs, their machines and seconds', async () => {
    await deployAndWait('meter-job', 'job', {
      'main.py': 'import time\ntime.sleep(1)\nprint("ran", flush=True)\n',
    });
    for (let i = 0; i < 2; i++) {
      const accepted = await call<{ deployment_id: string }>(
        'POST',
        '/api/v1/agents/meter-job/run',
        { payload: { i } },
      );
      expect(accepted.status).toBe(202);
      runs.push(
        await eventually(
          () =>
            call<Deployment>('GET', `/api/v1/deployments/${accepted.body.deployment_id}`).then(
              (r) => r.body,
            ),
          (x) => ['completed', 'failed'].includes(x.state),
          'run finished',
          60_000,
        ),
      );
    }
    expect(runs.map((r) => r.state)).toEqual(['completed', 'completed']);
    // The machine times as the run records show them.
    const listed = await call<{ items: RunRecord[] }>('GET', '/api/v1/agents/meter-job/runs');
    for (const run of runs) {
      const record = listed.body.items.find((r) => r.id === run.id)!;
      Object.assign(run, {
        machine_started_at: record.machine_started_at,
        machine_stopped_at: record.machine_stopped_at,
      });
    }
    const events = await eventually(
      () => allEvents('meter-job', 'kind=run,compute'),
      (e) => e.length === 4,
      'both runs reported',
    );
    for (const run of runs) {
      const started = ms(run.machine_started_at as string);
      const stopped = ms(run.machine_stopped_at as string);
      const ofRun = events.filter((e) => e.deployment_id === run.id);
      expect(ofRun.map((e) => e.kind).sort()).toEqual(['compute', 'run']);
      for (const e of ofRun) {
        expect(ms(e.started_at)).toBe(started);
        expect(ms(e.ended_at)).toBe(stopped);
        expect(e.seconds).toBeGreaterThanOrEqual(1);
      }
    }
  });

  it('sums it all in the summary: 50 edge requests, 2 runs, 2 builds, seconds of wall time', async () => {
    await server.usage!.writer.flush();
    const res = await call<Summary>('GET', '/api/v1/usage/summary');
    expect(res.status).toBe(200);
    summary = res.body;
    expect(summary.account_id).toBe(owner.accountId);
    expect(summary.period.current).toBe(true);
    const svc = summary.agents.find((a) => a.agent_id === service.agent_id)!;
    const job = summary.agents.find((a) => a.agent_id === runs[0]!.agent_id)!;
    expect(svc.totals.edge_request?.count).toBe(50);
    expect(svc.totals.edge_request?.bytes).toBeGreaterThanOrEqual(50 * 'metered'.length);
    expect(summary.totals.edge_request?.count).toBe(50);
    // The service's machine time is the wall time its process ran, spawn to exit: at least
    // from its first answer to the stop asked for; at most from the last moment the version
    // was seen unbuilt (no process yet) to the stop seen done, plus a second. The start-up
    // before the first answer (about 1.2 s of Python here) is metered: the machine holds its
    // memory from the spawn, so the bound cannot start at the first answer.
    const serviceSeconds = svc.totals.compute!.seconds;
    expect(serviceSeconds).toBeGreaterThanOrEqual((wall.stopRequested - wall.firstAnswer) / 1000);
    expect(serviceSeconds).toBeLessThanOrEqual((wall.stopDone - wall.lastBuilding) / 1000 + 1);
    // Two runs, whose seconds are their machines' as the run records show them.
    expect(job.totals.run).toMatchObject({ count: 2, events: 2 });
    const runWall =
      runs.reduce(
        (sum, r) => sum + ms(r.machine_stopped_at as string) - ms(r.machine_started_at as string),
        0,
      ) / 1000;
    expect(Math.abs(job.totals.run!.seconds - runWall)).toBeLessThan(1);
    expect(job.totals.compute!.mb_seconds).toBeCloseTo(job.totals.run!.seconds * 256, 0);
    expect(summary.totals.run?.count).toBe(2);
    expect(summary.totals.build?.count).toBe(2);
    expect(summary.totals.compute?.seconds).toBeCloseTo(
      serviceSeconds + job.totals.compute!.seconds,
      2,
    );
    // Every request made with the account key so far, this one excepted (it is recorded
    // once answered).
    const agentCalls = summary.agents.reduce(
      (sum, a) => sum + (a.totals.control_request?.count ?? 0),
      0,
    );
    expect(summary.totals.control_request!.count - agentCalls).toBe(accountKeyCalls - 1);
    expect(summary.limits.every((l) => l.limit === null && !l.exceeded)).toBe(true);
  });

  it('keeps the events across a restart of the API server', async () => {
    const again = await startControlPlaneServer({ shareWith: server });
    try {
      const res = await rawCall<Summary>(again, 'GET', '/api/v1/usage/summary', {
        key: owner.key,
      });
      usageBodies.push(res.text);
      expect(res.body.totals.edge_request?.count).toBe(50);
      expect(res.body.totals.run?.count).toBe(2);
      expect(res.body.totals.compute?.seconds).toBeCloseTo(summary.totals.compute!.seconds, 2);
    } finally {
      // Closing flushes its writer: the summary request it answered is stored too.
      await again.close();
    }
    await server.usage!.writer.flush();
    const after = await call<Summary>('GET', '/api/v1/usage/summary');
    expect(after.body.totals.control_request!.count).toBeGreaterThanOrEqual(
      summary.totals.control_request!.count + 2,
    );
  });

  it('selects a chosen period with from and to', async () => {
    const from = new Date(wall.stopSeen + 1).toISOString();
    const res = await call<Summary>(
      'GET',
      `/api/v1/usage/summary?from=${from}&to=${new Date(Date.now() + 60_000).toISOString()}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.period).toMatchObject({ from, current: false });
    // The service's machine and requests ended before the period.
    const svc = res.body.agents.find((a) => a.agent_id === service.agent_id);
    expect(svc?.totals.compute).toBeUndefined();
    expect(res.body.totals.run?.count).toBe(2);
  });

  it('filters and pages an agent’s events', async () => {
    const edgeEvents = await allEvents('meter-svc', 'kind=edge_request');
    expect(edgeEvents.reduce((sum, e) => sum + e.count, 0)).toBe(50);
    const every = await allEvents(service.agent_id);
    expect(new Set(every.map((e) => e.kind))).toEqual(
      new Set(['build', 'compute', 'edge_request']),
    );
    const ended = every.map((e) => ms(e.ended_at));
    expect(ended).toEqual([...ended].sort((a, b) => b - a));
    expect(new Set(every.map((e) => e.id)).size).toBe(every.length);
  });

  it('answers 401 without a key, 422 for a bad filter or cursor, 404 for another account’s agent', async () => {
    const none = await rawCall<Detail>(server, 'GET', '/api/v1/usage/summary');
    expect(none.status).toBe(401);
    expect(none.body.detail.code).toBe('MISSING_API_KEY');
    for (const query of ['kind=gpu', 'cursor=bm9wZQ', 'limit=0', 'from=yesterday']) {
      const bad = await call<Detail>('GET', `/api/v1/usage/agent/meter-svc/events?${query}`);
      expect(bad.status).toBe(422);
      expect(bad.body.detail.code).toBe('VALIDATION_ERROR');
    }
    const backwards = await call<Detail>(
      'GET',
      '/api/v1/usage/summary?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
    );
    expect(backwards.status).toBe(422);
    for (const ref of [service.agent_id, 'meter-svc']) {
      const foreign = await rawCall<Detail>(server, 'GET', `/api/v1/usage/agent/${ref}/events`, {
        key: stranger.key,
      });
      expect(foreign.status).toBe(404);
      expect(foreign.body.detail.code).toBe('AGENT_NOT_FOUND');
    }
  });

  it('shows no key or token in any usage response', () => {
    expect(usageBodies.length).toBeGreaterThan(10);
    for (const body of usageBodies) {
      expect(body).not.toContain(owner.key);
      expect(body).not.toContain(stranger.key);
      expect(body).not.toContain(server.internalSecret);
      expect(body).not.toMatch(/svc_(live|test)_[A-Za-z0-9]{8,}/);
    }
  });
});

/**
 * `usage_paused` end to end on one machine, with a plan whose monthly limit
 * is 5 edge requests: past it, the sweep moves the account's agents to
 * `usage_paused` (the service stops answering, a run is refused); a plan
 * change releases them, and so does the month turning (the server's clock
 * moved to the next month).
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../common/logger.js';
import { AgentIndex } from '../../apiserver/src/edge/agent-index.js';
import { createEdgeServer } from '../../apiserver/src/edge/edge-server.js';
import {
  call as rawCall,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { deployFiles, type Deployment } from '../apiserver/deploy/deploy-helpers.js';
import { startLocalOperator, type LocalOperator } from './local-operator.js';
import { eventually } from './operator-harness.js';
import { getThroughEdge } from '../factories/edge-request.js';

jest.setTimeout(300_000);

const DOMAIN = 'agents.localtest';
const EDGE_REQUESTS_LIMIT = 5;
type Agent = { id: string; status: string; url: string | null };
type Summary = { limits: Array<{ metric: string; used: number; exceeded: boolean }> };

let server: TestServer;
let owner: Caller;
let operator: LocalOperator;
let index: AgentIndex;
let edge: Server;
let edgePort: number;
/** Added to the server's clock: the month turns when the test says so. */
let clockOffsetMs = 0;

const call = <T>(method: string, path: string, body?: unknown) =>
  rawCall<T>(server, method, path, { key: owner.key, body });

function viaEdge(url: string): Promise<{ status: number; text: string }> {
  return getThroughEdge(url, '127.0.0.1', edgePort);
}

async function deploy(name: string, agentType: string, main: string): Promise<void> {
  expect((await call('POST', '/api/v1/agents', { name, agent_type: agentType })).status).toBe(201);
  const d = (await deployFiles(server, owner.key, name, { 'main.py': main })).body;
  const final = await eventually(
    () => call<Deployment>('GET', `/api/v1/deployments/${d.id}`).then((r) => r.body),
    (x) => ['active', 'failed'].includes(x.state),
    `${name} deployed`,
    120_000,
  );
  expect(final.state).toBe('active');
}

const statusOf = (name: string, status: string) =>
  eventually(
    () => call<Agent>('GET', `/api/v1/agents/${name}`).then((r) => r.body),
    (a) => a.status === status,
    `${name} ${status}`,
  );

/** Writes the usage recorded so far, then runs one enforcement sweep. */
async function sweep() {
  await server.usage!.writer.flush();
  return server.usage!.enforcer.sweep();
}

beforeAll(async () => {
  server = await startControlPlaneServer({
    plansJson: JSON.stringify({
      starter: { usageLimits: { edgeRequests: EDGE_REQUESTS_LIMIT } },
    }),
    now: () => Date.now() + clockOffsetMs,
  });
  owner = await createCaller(server, { tier: 'starter' });
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

describe('usage_paused', () => {
  let url: string;

  it('leaves an account under its limits alone', async () => {
    await deploy(
      'capped',
      'service',
      [
        'async def app(scope, receive, send):',
        '    await send({"type": "http.response.start", "status": 200, "headers": []})',
        '    await send({"type": "http.response.body", "body": b"ok"})',
        '',
      ].join('\n'),
    );
    await deploy('capped-job', 'job', 'print("ran", flush=True)\n');
    url = (
      await eventually(
        () => call<Agent>('GET', '/api/v1/agents/capped').then((r) => r.body),
        (a) => a.status === 'running' && a.url !== null,
        'capped running',
      )
    ).url!;
    for (let i = 0; i < EDGE_REQUESTS_LIMIT; i++) expect((await viaEdge(url)).status).toBe(200);
    expect(await sweep()).toEqual({ paused: [], released: [] });
    expect((await call<Agent>('GET', '/api/v1/agents/capped')).body.status).toBe('running');
  });

  it('moves every agent of an account past a hard limit to usage_paused', async () => {
    expect((await viaEdge(url)).status).toBe(200);
    expect((await sweep()).paused).toEqual([owner.accountId]);
    await statusOf('capped', 'usage_paused');
    await statusOf('capped-job', 'usage_paused');
    const summary = await call<Summary>('GET', '/api/v1/usage/summary');
    expect(summary.body.limits.find((l) => l.metric === 'edge_requests')).toMatchObject({
      used: EDGE_REQUESTS_LIMIT + 1,
      exceeded: true,
    });
    // The service no longer answers at its address, and a run is refused with the reason.
    const answer = await eventually(
      () => viaEdge(url),
      (r) => r.status === 404,
      'the edge stops answering for the paused service',
    );
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'AGENT_NOT_REACHABLE' } });
    const run = await call<{ deployment_id: string }>('POST', '/api/v1/agents/capped-job/run', {});
    expect(run.status).toBe(202);
    const finished = await eventually(
      () =>
        call<Deployment>('GET', `/api/v1/deployments/${run.body.deployment_id}`).then(
          (r) => r.body,
        ),
      (d) => ['completed', 'failed'].includes(d.state),
      'the refused run finished',
    );
    expect(finished.state).toBe('failed');
    expect(finished.error_message).toMatch(/usage limit/);
    // Sweeping again changes nothing.
    expect(await sweep()).toEqual({ paused: [], released: [] });
  });

  it('releases the agents when the plan changes to one the usage fits', async () => {
    await server.accounts.updateAccount(owner.accountId, { tier: 'performance' });
    expect((await sweep()).released).toEqual([owner.accountId]);
    await statusOf('capped', 'running');
    await statusOf('capped-job', 'running');
    const answer = await eventually(
      () => viaEdge(url),
      (r) => r.status === 200,
      'the service answers again',
      60_000,
    );
    expect(answer.text).toBe('ok');
  });

  it('pauses again on the small plan, and releases when the month turns', async () => {
    await server.accounts.updateAccount(owner.accountId, { tier: 'starter' });
    expect((await sweep()).paused).toEqual([owner.accountId]);
    await statusOf('capped', 'usage_paused');
    const now = new Date();
    clockOffsetMs = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime() + 1000;
    expect((await sweep()).released).toEqual([owner.accountId]);
    await statusOf('capped', 'running');
    await statusOf('capped-job', 'running');
  });
});

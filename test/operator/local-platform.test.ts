/**
 * End to end on one machine, through the HTTP API alone: the operator with
 * the local driver runs real Python, Node and Bun processes. Deploy, wait for
 * active, call the agent at its address through the edge, run a job with a
 * payload, read the logs; an entry point that does not import fails the
 * deployment with the interpreter's own message, and a missing Bun fails a
 * `bun` deployment saying so.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, symlinkSync, unlinkSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../common/logger.js';
import { AgentIndex } from '../../apiserver/src/edge/agent-index.js';
import { createEdgeServer } from '../../apiserver/src/edge/edge-server.js';
import type { ScheduleClock } from '../../operator/src/drivers/local/local-driver.js';
import { RUNNERS } from '../../operator/src/drivers/local/runner-command.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { deployFiles, type Deployment } from '../apiserver/deploy/deploy-helpers.js';
import { startLocalOperator, type LocalOperator } from './local-operator.js';
import { eventually } from './operator-harness.js';
import { waitFor } from '../harness/wait.js';

// A deploy may wait 120 s for its build on a cold machine, then for its run.
jest.setTimeout(240_000);

const DOMAIN = 'agents.localtest';
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
let server: TestServer;
let owner: Caller;
let operator: LocalOperator;
let index: AgentIndex;
let edge: Server;
let edgePort: number;
const dir = mkdtempSync(join(tmpdir(), 'svc-local-'));
/** SVC_BUN_PATH of the operator: a link to the Bun of .tools, which one test takes away. */
const bunLink = join(dir, 'bun');

/**
 * A schedule clock the test drives: the next `fastForwards` timers fire at
 * once with the clock jumped to their due time; later ones wait for real.
 */
const clock = {
  virtual: 0,
  fastForwards: 0,
  now(): Date {
    return new Date(Math.max(this.virtual, Date.now()));
  },
  setTimeout(fire: () => void, ms: number): NodeJS.Timeout {
    if (this.fastForwards <= 0) return setTimeout(fire, ms).unref();
    this.fastForwards--;
    const due = this.now().getTime() + ms;
    return setTimeout(() => {
      this.virtual = due;
      fire();
    }, 50).unref();
  },
};
const scheduleClock: ScheduleClock = clock;

beforeAll(async () => {
  server = await startControlPlaneServer();
  // This suite polls the API while builds run; a slow machine must not spend
  // a per-minute budget meant for people (rate limits have their own tests).
  owner = await createCaller(server, { tier: 'enterprise' });
  symlinkSync(RUNNERS.bun, bunLink);
  operator = await startLocalOperator(server, (ns) => ns === owner.namespace, {
    env: { SVC_BUN_PATH: bunLink },
    dir,
    overrides: { agentDomain: DOMAIN },
    clock: scheduleClock,
  });
  index = new AgentIndex(server.kc, createLogger('apiserver', 'silent'));
  await index.start();
  edge = createEdgeServer({ domain: DOMAIN, index, log: createLogger('edge', 'silent') });
  await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
  edgePort = (edge.address() as AddressInfo).port;
}, 120_000);

afterAll(async () => {
  edge.close();
  await index.stop();
  await operator.stop();
  await server.close();
});

type Agent = { id: string; name: string; url: string | null; status: string };
type AgentRecord = Agent & {
  cron_last_run_at: string | null;
  cron_last_status: string | null;
  cron_last_reason: string | null;
};
const getDeployment = (id: string) =>
  call<Deployment>(server, 'GET', `/api/v1/deployments/${id}`, { key: owner.key }).then(
    (r) => r.body,
  );

function viaEdge(
  url: string,
  method = 'GET',
  body?: string,
): Promise<{ status: number; text: string }> {
  const { host, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: edgePort,
        method,
        path: `${pathname}${search}`,
        headers: { host },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function deployAndWait(
  name: string,
  create: Record<string, unknown>,
  files: Record<string, string>,
): Promise<{ agent: Agent; deployment: Deployment }> {
  const created = await call<Agent>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name, ...create },
  });
  expect(created.status).toBe(201);
  const d = (await deployFiles(server, owner.key, name, files)).body;
  const final = await eventually(
    () => getDeployment(d.id),
    (x) => ['active', 'failed'].includes(x.state),
    `${name} deployed`,
    120_000,
  );
  // The agent's status follows its deployment at the operator's next reconcile.
  const settled = final.state === 'active' ? 'running' : 'failed';
  const agent = (
    await eventually(
      () => call<Agent>(server, 'GET', `/api/v1/agents/${name}`, { key: owner.key }),
      (r) =>
        r.body.status === settled &&
        (create.agent_type === 'job' || settled === 'failed' || r.body.url !== null),
      `${name} ${settled}`,
    )
  ).body;
  return { agent, deployment: final };
}

async function logs(agent: string): Promise<Array<{ stream: string; message: string }>> {
  return (
    await call<{ items: Array<{ stream: string; message: string }> }>(
      server,
      'GET',
      `/api/v1/agents/${agent}/logs?limit=1000`,
      { key: owner.key },
    )
  ).body.items;
}

/** Runs `agent` with `payload` through the API and waits for the run to finish. */
async function runToEnd(agent: string, payload: unknown): Promise<Deployment> {
  const accepted = await call<{ deployment_id: string }>(
    server,
    'POST',
    `/api/v1/agents/${agent}/run`,
    { key: owner.key, body: { payload } },
  );
  expect(accepted.status).toBe(202);
  return eventually(
    () => getDeployment(accepted.body.deployment_id),
    (x) => ['completed', 'failed'].includes(x.state),
    `${agent} run finished`,
    60_000,
  );
}

/** Waits until the agent's logs have a line whose message is `message`. */
async function waitForLogLine(agent: string, message: string, stream?: string): Promise<void> {
  await eventually(
    () => logs(agent),
    (lines) => lines.some((l) => l.message === message && (!stream || l.stream === stream)),
    `${agent} logged ${message}`,
  );
}

describe('single machine, end to end', () => {
  it('deploys a Python ASGI service with a dependency and serves it at its address', async () => {
    const { agent, deployment } = await deployAndWait(
      'py-svc',
      {},
      {
        'requirements.txt': 'six==1.16.0\n',
        'main.py': [
          'import six',
          'print("starting with six", six.__version__, flush=True)',
          'async def app(scope, receive, send):',
          '    if scope["type"] != "http":',
          '        return',
          '    await send({"type": "http.response.start", "status": 200, "headers": [[b"content-type", b"text/plain"]]})',
          '    await send({"type": "http.response.body", "body": ("py:" + scope["path"]).encode()})',
          'if __name__ == "__main__":',
          '    raise SystemExit("never runs")',
          '',
        ].join('\n'),
      },
    );
    expect(deployment).toMatchObject({ state: 'active', error_message: null });
    expect(agent.status).toBe('running');
    expect(agent.url).toMatch(
      new RegExp(`^http://py-svc-[a-z0-9]{6}\\.${DOMAIN.replace('.', '\\.')}$`),
    );
    const res = await viaEdge(`${agent.url ?? ''}/hello`);
    expect(res).toEqual({ status: 200, text: 'py:/hello' });
    await eventually(
      () => logs('py-svc'),
      (lines) =>
        lines.some((l) => l.stream === 'stdout' && l.message.includes('starting with six')),
      'stdout in logs',
    );
    const system = (await logs('py-svc'))
      .filter((l) => l.stream === 'system')
      .map((l) => l.message);
    expect(system.some((m) => m.includes('build of version 1 started'))).toBe(true);
  });

  it('deploys a Node service and serves it', async () => {
    const { agent, deployment } = await deployAndWait(
      'node-svc',
      { runtime: 'node22' },
      {
        'index.js': "module.exports = { app: (req, res) => res.end('node:' + req.url) };\n",
      },
    );
    expect(deployment.state).toBe('active');
    expect(await viaEdge(`${agent.url ?? ''}/x`)).toEqual({ status: 200, text: 'node:/x' });
  });

  it('deploys examples/node-service as shipped (CommonJS, no package.json of its own) and serves it', async () => {
    const example = join(repoRoot, 'examples', 'node-service');
    const files = Object.fromEntries(
      readdirSync(example).map((name) => [name, readFileSync(join(example, name), 'utf8')]),
    );
    expect(Object.keys(files).sort()).toEqual(['index.js', 'svc.yaml']);
    const { agent, deployment } = await deployAndWait('hello-node', { runtime: 'node22' }, files);
    expect(deployment).toMatchObject({ state: 'active', error_message: null, warnings: [] });
    const res = await viaEdge(`${agent.url ?? ''}/x`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ hello: 'from node', path: '/x', agent: 'hello-node' });
  });

  it('fails a deployment whose entry point does not import, with the interpreter message', async () => {
    const { deployment, agent } = await deployAndWait(
      'py-broken',
      {},
      {
        'main.py': 'import nope_not_a_module\napp = None\n',
      },
    );
    expect(deployment.state).toBe('failed');
    expect(deployment.error_message).toMatch(
      /ModuleNotFoundError: No module named 'nope_not_a_module'/,
    );
    expect(agent.status).toBe('failed');
  });

  it.each([
    [
      'a Python job',
      'py-job-syntax',
      { agent_type: 'job' },
      { 'main.py': 'print("never runs")\nvalues = (1, 2\n' },
      "Build failed: SyntaxError: '(' was never closed (main.py, line 2)",
    ],
    [
      'a Node job',
      'node-job-syntax',
      { agent_type: 'job', runtime: 'node22', entrypoint: 'jobs/nightly.js' },
      { 'jobs/nightly.js': "console.log('never runs');\nconst total = 2 +* 3;\n" },
      "Build failed: SyntaxError: Unexpected token '*' (jobs/nightly.js, line 2)",
    ],
    [
      'a Python service',
      'py-svc-syntax',
      {},
      { 'main.py': 'async def app(scope, receive, send):\n  pass\n return\n' },
      'Build failed: IndentationError: unindent does not match any outer indentation level (main.py, line 3)',
    ],
  ])(
    "fails the deploy of %s whose entry point does not compile, with the interpreter's message, file and line",
    async (_case, name, create, files, message) => {
      const { deployment, agent } = await deployAndWait(name, create, files);
      expect(deployment).toMatchObject({ state: 'failed', error_message: message });
      expect(agent.status).toBe('failed');
    },
  );

  it("names the agent's files relative to its code in a build failure, never the host's build path", async () => {
    const { deployment } = await deployAndWait(
      'py-editable',
      {},
      {
        'requirements.txt': '-e .\n',
        'main.py': 'async def app(scope, receive, send):\n    pass\n',
      },
    );
    expect(deployment.state).toBe('failed');
    expect(deployment.error_message).toContain(
      'ERROR: . (from -r requirements.txt (line 1)) does not appear to be a Python project',
    );
    expect(deployment.error_message).not.toMatch(/\/app\b/);
    expect(deployment.error_message).not.toContain(dir);
  });

  it('runs a Python job with its payload and records the run', async () => {
    const { deployment } = await deployAndWait(
      'py-job',
      { agent_type: 'job' },
      {
        'main.py': [
          'import json, os, urllib.request',
          'req = urllib.request.Request(os.environ["SVC_API_URL"] + "/api/v1/deployments/" + os.environ["SVC_DEPLOYMENT_ID"] + "/payload", headers={"Authorization": "Bearer " + os.environ["SVC_API_KEY"]})',
          'payload = json.load(urllib.request.urlopen(req))["payload"]',
          'print("job got", payload["city"], "as", os.environ["SVC_AGENT_NAME"], flush=True)',
          '',
        ].join('\n'),
      },
    );
    expect(deployment.state).toBe('active');
    const run = await runToEnd('py-job', { city: 'Bergen' });
    expect(run).toMatchObject({ state: 'completed', error_message: null });
    const runs = await call<{
      items: Array<{ state: string; duration_seconds: number | null; trigger_source: string }>;
    }>(server, 'GET', '/api/v1/agents/py-job/runs', { key: owner.key });
    expect(runs.body.items[0]).toMatchObject({ state: 'completed', trigger_source: 'manual' });
    expect(runs.body.items[0]?.duration_seconds).not.toBeNull();
    await waitForLogLine('py-job', 'job got Bergen as py-job');
  });

  it('fires a schedule: the firing starts a cron run that completes (clock driven by the test)', async () => {
    clock.fastForwards = 1;
    const { deployment } = await deployAndWait(
      'py-cron',
      { agent_type: 'job' },
      {
        'main.py': 'print("tick", flush=True)\n',
        'svc.yaml': 'schedule: "*/5 * * * *"\n',
      },
    );
    expect(deployment.state).toBe('active');
    const runs = await eventually(
      () =>
        call<{ items: Array<{ trigger_source: string; state: string; created_at: string }> }>(
          server,
          'GET',
          '/api/v1/agents/py-cron/runs',
          { key: owner.key },
        ),
      (r) => r.body.items.some((run) => run.trigger_source === 'cron' && run.state === 'completed'),
      'a completed cron run',
      60_000,
    );
    const cronRuns = runs.body.items.filter((run) => run.trigger_source === 'cron');
    expect(cronRuns).toHaveLength(1);
    await waitForLogLine('py-cron', 'tick', 'stdout');
    // The schedule's bookkeeping follows the run it fired.
    const agent = await eventually(
      () => call<AgentRecord>(server, 'GET', '/api/v1/agents/py-cron', { key: owner.key }),
      (r) => r.body.cron_last_status === 'completed',
      'the cron bookkeeping of py-cron',
    );
    expect(agent.body).toMatchObject({
      cron_last_run_at: cronRuns[0]?.created_at,
      cron_last_status: 'completed',
      cron_last_reason: null,
    });
  });

  it('makes a line a run prints readable through the logs route within a second', async () => {
    const { deployment } = await deployAndWait(
      'py-tail',
      { agent_type: 'job' },
      {
        'main.py': [
          'import time',
          'print("printed at", int(time.time() * 1000), flush=True)',
          'time.sleep(3)',
          '',
        ].join('\n'),
      },
    );
    expect(deployment.state).toBe('active');
    const accepted = await call<{ deployment_id: string }>(
      server,
      'POST',
      '/api/v1/agents/py-tail/run',
      {
        key: owner.key,
        body: { payload: null },
      },
    );
    expect(accepted.status).toBe(202);
    // Followed through the logs route, which is what is measured (it has no push: a follower
    // reads again after a pause); a short pause adds little to the latency measured.
    let lines: Array<{ message: string }> = [];
    const { printed, seenAt } = await waitFor(
      'the "printed at" line of py-tail in its logs',
      async () => {
        lines = await logs('py-tail');
        const printed = lines.find((l) => l.message.startsWith('printed at '));
        return printed && { printed, seenAt: Date.now() };
      },
      { timeoutMs: 20_000, everyMs: 20, lastSeen: () => lines.slice(-5).map((l) => l.message) },
    );
    const printedAt = Number(printed.message.split(' ')[2]);
    // The run sleeps on after printing: the line did not wait for the process to end.
    expect(seenAt - printedAt).toBeLessThan(1000);
    const run = await getDeployment(accepted.body.deployment_id);
    expect(run.state).not.toBe('completed');
  });

  it("runs a service agent as one POST /svc/run to it, with the run's payload", async () => {
    const { deployment } = await deployAndWait(
      'svc-run',
      {},
      {
        'main.py': [
          'import json',
          'async def app(scope, receive, send):',
          '    if scope["type"] != "http":',
          '        return',
          '    body = (await receive()).get("body", b"")',
          '    if scope["path"] == "/svc/run":',
          '        print("svc run got", json.loads(body or b"{}"), flush=True)',
          '    await send({"type": "http.response.start", "status": 200, "headers": []})',
          '    await send({"type": "http.response.body", "body": b"ok"})',
          '',
        ].join('\n'),
      },
    );
    expect(deployment.state).toBe('active');
    const run = await runToEnd('svc-run', { n: 7 });
    expect(run).toMatchObject({ state: 'completed', error_message: null });
    await waitForLogLine('svc-run', "svc run got {'n': 7}");
  });

  it('deploys a Bun service with a package.json dependency and serves it at its address', async () => {
    const { agent, deployment } = await deployAndWait(
      'bun-svc',
      { runtime: 'bun', entrypoint: 'server.ts' },
      {
        'package.json': JSON.stringify({ dependencies: { ms: '2.1.3' } }),
        'server.ts': [
          "import ms from 'ms';",
          'console.log(`starting on Bun ${Bun.version}`);',
          'export default {',
          '  fetch(request: Request): Response {',
          '    const { pathname } = new URL(request.url);',
          "    return new Response(`bun:${pathname}:${ms('1m')}`);",
          '  },',
          '};',
          '',
        ].join('\n'),
      },
    );
    expect(deployment).toMatchObject({ state: 'active', error_message: null });
    expect(agent.status).toBe('running');
    expect(await viaEdge(`${agent.url ?? ''}/hi`)).toEqual({ status: 200, text: 'bun:/hi:60000' });
    const version = execFileSync(RUNNERS.bun, ['--version'], { encoding: 'utf8' }).trim();
    await waitForLogLine('bun-svc', `starting on Bun ${version}`, 'stdout');
  });

  it('runs a Bun job with its payload as the main module and records the run', async () => {
    const { deployment } = await deployAndWait(
      'bun-job',
      { runtime: 'bun', agent_type: 'job', entrypoint: 'job.ts' },
      {
        'job.ts': [
          'const { SVC_API_URL, SVC_API_KEY, SVC_DEPLOYMENT_ID, SVC_AGENT_NAME } = process.env;',
          'const url = `${SVC_API_URL}/api/v1/deployments/${SVC_DEPLOYMENT_ID}/payload`;',
          'const res = await fetch(url, { headers: { authorization: `Bearer ${SVC_API_KEY}` } });',
          'const { payload } = (await res.json()) as { payload: { city: string } };',
          'if (import.meta.main) console.log(`bun job got ${payload.city} as ${SVC_AGENT_NAME}`);',
          '',
        ].join('\n'),
      },
    );
    expect(deployment.state).toBe('active');
    const run = await runToEnd('bun-job', { city: 'Oslo' });
    expect(run).toMatchObject({ state: 'completed', error_message: null });
    await waitForLogLine('bun-job', 'bun job got Oslo as bun-job', 'stdout');
  });

  it('fails a Bun deployment, saying so, when Bun is not installed', async () => {
    unlinkSync(bunLink);
    try {
      const { deployment, agent } = await deployAndWait(
        'bun-missing',
        { runtime: 'bun' },
        { 'index.js': 'module.exports = { app: (req, res) => res.end() };\n' },
      );
      expect(deployment.state).toBe('failed');
      // The platform's directories on this host are not the agent owner's business.
      expect(deployment.error_message).toBe(
        'Build failed: Bun is not installed at <platform>/bun; run `node hack/bun.mjs` or set SVC_BUN_PATH.',
      );
      expect(agent.status).toBe('failed');
    } finally {
      symlinkSync(RUNNERS.bun, bunLink);
    }
  });
});

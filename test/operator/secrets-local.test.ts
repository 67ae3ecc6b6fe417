/**
 * Agent secrets on one machine, end to end through the HTTP API and the edge,
 * with the operator's local driver running real Python: a service sees its
 * secret as an environment variable, a rotation reaches the running service
 * within seconds with no failed request through the edge (the driver starts
 * a process with the new values beside the old one and swaps them), a job's run
 * sees the secret, so do a scheduled run (a value set after the schedule was
 * armed) and a spawned child, and a line printing a value is stored with
 * `***` instead.
 * No response body and no stored log line holds a value.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createLogger } from '../../common/logger.js';
import { capturingLogger } from '../harness/capturing-logger.js';
import { generateSecret } from '../../common/secrets.js';
import { AgentIndex } from '../../apiserver/src/edge/agent-index.js';
import { createEdgeServer } from '../../apiserver/src/edge/edge-server.js';
import { buildControlPlane } from '../../apiserver/src/assemble.js';
import { loadOperatorConfig } from '../../operator/src/config.js';
import { LocalDriver } from '../../operator/src/drivers/local/local-driver.js';
import { OperatorManager } from '../../operator/src/manager.js';
import { kubeConfig, mongoDatabase } from '../harness/env.js';
import {
  call as rawCall,
  createCaller,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { deployFiles, type Deployment } from '../apiserver/deploy/deploy-helpers.js';
import type { ScheduleClock } from '../../operator/src/drivers/local/local-driver.js';
import { eventually } from './operator-harness.js';

// A deploy may wait 120 s for its build on a cold machine, then for its run.
jest.setTimeout(300_000);

const DOMAIN = 'agents.localtest';
/** How long a rotation may take to reach the running service (documented as "within seconds"). */
const ROTATION_WINDOW_MS = 60_000;
let server: TestServer;
let owner: Caller;
let manager: OperatorManager;
let driver: LocalDriver;
const driverDir = mkdtempSync(join(tmpdir(), 'svc-secrets-'));
/** Every line the API server and the operator logged, at debug. */
const logLines: string[] = [];
let index: AgentIndex;
let edge: Server;
let edgePort: number;
const bodies: string[] = [];
const values: string[] = [];

/**
 * A schedule clock whose timers wait until the test releases them: the
 * released timer fires with the clock moved to its due time.
 */
const held: Array<{ fire: () => void; due: number }> = [];
let virtualNow = 0;
const clock: ScheduleClock = {
  now: () => new Date(Math.max(virtualNow, Date.now())),
  setTimeout(fire, ms) {
    held.push({ fire, due: Math.max(virtualNow, Date.now()) + ms });
    return setTimeout(() => undefined, 0).unref();
  },
};

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function newValue(label: string): string {
  const value = `${label}-${generateSecret().slice(0, 20)}`;
  values.push(value);
  return value;
}

async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await rawCall<T>(server, method, path, { key: owner.key, body });
  bodies.push(res.text);
  return res;
}

/** The control plane and the local operator, as the harness starts them, logging to {@link logLines}. */
async function startPlatform(): Promise<void> {
  const kc = kubeConfig();
  const { client: mongo, db } = await mongoDatabase('secrets-local');
  const internalSecret = generateSecret();
  const built = await buildControlPlane(
    { mongo, db, kc },
    { regions: ['local', 'eu-west'], plansJson: undefined, internalSecret },
    capturingLogger('apiserver', logLines),
  );
  const http = built.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => http.once('listening', resolve));
  server = {
    base: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    db,
    mongo,
    kc,
    accounts: built.deps.accounts,
    internalSecret,
    close: async () => {
      await new Promise((resolve) => http.close(resolve));
      await built.caches.stop();
      await db.dropDatabase().catch(() => undefined);
      await mongo.close();
    },
  };
  owner = await createCaller(server, { tier: 'enterprise' });
  const log = capturingLogger('operator', logLines);
  const cfg = {
    ...loadOperatorConfig({ SVC_INTERNAL_SECRET: internalSecret }),
    internalApiUrl: server.base,
    publicApiUrl: server.base,
    agentDomain: DOMAIN,
  };
  driver = await new LocalDriver(kc, cfg, driverDir, log, clock).init();
  const namespace = owner.namespace;
  manager = new OperatorManager({ kc, cfg, driver, log, namespaces: (ns) => ns === namespace });
  await manager.start();
}

beforeAll(async () => {
  await startPlatform();
  index = new AgentIndex(server.kc, createLogger('apiserver', 'silent'));
  await index.start();
  edge = createEdgeServer({ domain: DOMAIN, index, log: createLogger('edge', 'silent') });
  await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
  edgePort = (edge.address() as AddressInfo).port;
}, 120_000);

afterAll(async () => {
  edge.close();
  await index.stop();
  await manager.stop();
  await driver.close();
  rmSync(driverDir, { recursive: true, force: true });
  await server.close();
});

type Agent = { id: string; name: string; url: string | null; status: string };
type LogLine = { stream: string; message: string };

function viaEdge(url: string): Promise<{ status: number; text: string }> {
  const { host, pathname } = new URL(url);
  return new Promise((resolve) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: edgePort, method: 'GET', path: pathname, headers: { host } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    // A service that is restarting may refuse a connection: that is a miss, not a failure.
    req.on('error', () => resolve({ status: 0, text: '' }));
    req.end();
  });
}

async function setSecret(agent: string, key: string, value: string): Promise<void> {
  const res = await call('POST', `/api/v1/agents/${agent}/secrets`, { key, value });
  expect([200, 201]).toContain(res.status);
}

async function deployAndWait(
  name: string,
  create: Record<string, unknown>,
  files: Record<string, string>,
  secret: { key: string; value: string },
): Promise<Agent> {
  expect((await call('POST', '/api/v1/agents', { name, ...create })).status).toBe(201);
  await setSecret(name, secret.key, secret.value);
  const d = (await deployFiles(server, owner.key, name, files)).body;
  const final = await eventually(
    async () => (await call<Deployment>('GET', `/api/v1/deployments/${d.id}`)).body,
    (x) => ['active', 'failed'].includes(x.state),
    `${name} deployed`,
    150_000,
  );
  expect(final).toMatchObject({ state: 'active' });
  return (
    await eventually(
      () => call<Agent>('GET', `/api/v1/agents/${name}`),
      (r) => r.body.status === 'running' && (create.agent_type === 'job' || r.body.url !== null),
      `${name} running`,
    )
  ).body;
}

async function logs(agent: string): Promise<LogLine[]> {
  return (await call<{ items: LogLine[] }>('GET', `/api/v1/agents/${agent}/logs?limit=1000`)).body
    .items;
}

const SERVICE = [
  'import hashlib, os',
  'print("service token", os.environ["API_TOKEN"], flush=True)',
  'async def app(scope, receive, send):',
  '    if scope["type"] != "http":',
  '        return',
  '    digest = hashlib.sha256(os.environ["API_TOKEN"].encode()).hexdigest()',
  '    await send({"type": "http.response.start", "status": 200, "headers": [[b"content-type", b"text/plain"]]})',
  '    await send({"type": "http.response.body", "body": digest.encode()})',
  '',
].join('\n');

const JOB = [
  'import hashlib, os',
  'print("job hash", hashlib.sha256(os.environ["API_TOKEN"].encode()).hexdigest(), flush=True)',
  'print("job token", os.environ["API_TOKEN"], flush=True)',
  '',
].join('\n');

/** A job printing the hashes of a workspace-only secret and of one both the workspace and the agent hold. */
const WORKSPACE_JOB = [
  'import hashlib, os',
  'print("workspace hash", hashlib.sha256(os.environ["WS_ONLY"].encode()).hexdigest(), flush=True)',
  'print("shared hash", hashlib.sha256(os.environ["SHARED"].encode()).hexdigest(), flush=True)',
  '',
].join('\n');

/** A job that spawns sec-child through SVC_SPAWN_URL with its own key. */
const SPAWNER = [
  'import json, os, urllib.request',
  'body = json.dumps({"child_agent_id": "sec-child"}).encode()',
  'headers = {"authorization": "Bearer " + os.environ["SVC_API_KEY"], "content-type": "application/json"}',
  'request = urllib.request.Request(os.environ["SVC_SPAWN_URL"], data=body, headers=headers, method="POST")',
  'print("spawned", urllib.request.urlopen(request).status, flush=True)',
  '',
].join('\n');

describe('agent secrets with the local driver', () => {
  it('gives a service its secret, and the new value within seconds of a rotation', async () => {
    const first = newValue('svc-v1');
    const agent = await deployAndWait(
      'sec-svc',
      {},
      { 'main.py': SERVICE },
      {
        key: 'API_TOKEN',
        value: first,
      },
    );
    const url = `${agent.url ?? ''}/`;
    await eventually(
      () => viaEdge(url),
      (r) => r.status === 200 && r.text === sha256(first),
      'the hash of the first value',
    );

    // Requests keep flowing through the edge while the service rolls: none may fail.
    const seen: Array<{ status: number; text: string }> = [];
    const second = newValue('svc-v2');
    const rotated = await call('POST', '/api/v1/agents/sec-svc/secrets/API_TOKEN/rotate', {
      value: second,
    });
    expect(rotated.status).toBe(200);
    const deadline = Date.now() + ROTATION_WINDOW_MS;
    while (Date.now() < deadline && seen.at(-1)?.text !== sha256(second)) {
      seen.push(await viaEdge(url));
    }
    expect(seen.at(-1)).toEqual({ status: 200, text: sha256(second) });
    for (const res of seen) {
      expect(res.status).toBe(200);
      expect([sha256(first), sha256(second)]).toContain(res.text);
    }
    // Every request after the first answer with the new value gets it too.
    const later = await Promise.all([viaEdge(url), viaEdge(url), viaEdge(url)]);
    for (const res of later) expect(res).toEqual({ status: 200, text: sha256(second) });
  });

  it('stores a line printing a value with *** in its place', async () => {
    const lines = await eventually(
      () => logs('sec-svc'),
      (all) => all.filter((l) => l.message.startsWith('service token')).length >= 2,
      'both starts of the service logged',
    );
    const printed = lines.filter((l) => l.message.startsWith('service token'));
    for (const line of printed) expect(line.message).toBe('service token ***');
    expect(lines.some((l) => l.message.includes('secrets changed'))).toBe(true);
  });

  it("gives a job's run the value current when it starts, masked in its output", async () => {
    const first = newValue('job-v1');
    await deployAndWait(
      'sec-job',
      { agent_type: 'job' },
      { 'main.py': JOB },
      {
        key: 'API_TOKEN',
        value: first,
      },
    );
    const second = newValue('job-v2');
    await setSecret('sec-job', 'API_TOKEN', second);
    const accepted = await call<{ deployment_id: string }>('POST', '/api/v1/agents/sec-job/run', {
      payload: {},
    });
    expect(accepted.status).toBe(202);
    const run = await eventually(
      async () =>
        (await call<Deployment>('GET', `/api/v1/deployments/${accepted.body.deployment_id}`)).body,
      (x) => ['completed', 'failed'].includes(x.state),
      'the run finished',
      90_000,
    );
    expect(run.state).toBe('completed');
    const lines = await eventually(
      () => logs('sec-job'),
      (all) => all.some((l) => l.message.startsWith('job token')),
      'the run logged',
    );
    expect(lines.map((l) => l.message)).toContain(`job hash ${sha256(second)}`);
    expect(lines.find((l) => l.message.startsWith('job token'))?.message).toBe('job token ***');
  });

  it("gives a run a secret whose key is the contract's longest (255 characters) under its own name", async () => {
    const longKey = `LONG_${'K'.repeat(250)}`;
    const first = newValue('long-v1');
    const job = [
      'import hashlib, os',
      `print("long hash", hashlib.sha256(os.environ["${longKey}"].encode()).hexdigest(), flush=True)`,
      '',
    ].join('\n');
    await deployAndWait(
      'sec-long',
      { agent_type: 'job' },
      { 'main.py': job },
      { key: longKey, value: first },
    );
    const accepted = await call<{ deployment_id: string }>('POST', '/api/v1/agents/sec-long/run', {
      payload: {},
    });
    expect(accepted.status).toBe(202);
    const lines = await eventually(
      () => logs('sec-long'),
      (all) => all.some((l) => l.message.startsWith('long hash') || l.stream === 'stderr'),
      'the run logged',
      90_000,
    );
    expect(lines.map((l) => l.message)).toContain(`long hash ${sha256(first)}`);
  });

  it('gives a build the secrets only when svc.yaml opts in (build_secrets: true), its output never showing a value', async () => {
    // pip prints the index it uses: a private index's URL with its token is the classic build secret.
    const index = newValue('http://pip-user:token') + '@svc-build-probe.invalid/simple/';
    values.push(index);
    const files = (svcYaml: string) => ({
      'main.py': SERVICE,
      'requirements.txt': 'svc-build-probe-package==1.0\n',
      'svc.yaml': svcYaml,
    });
    /** The build lines logged once version `version` has failed and said so. */
    const buildLines = async (deploymentId: string, version: number) => {
      const done = await eventually(
        async () => (await call<Deployment>('GET', `/api/v1/deployments/${deploymentId}`)).body,
        (x) => ['active', 'failed'].includes(x.state),
        'the build finished',
        150_000,
      );
      // The package exists on no index: the build fails either way, after pip named its index.
      expect(done.state).toBe('failed');
      const lines = await eventually(
        () => logs('sec-build'),
        (all) => all.some((l) => l.message.startsWith(`build of version ${version} failed`)),
        'the build logged its end',
      );
      return lines.filter((l) => l.message.startsWith('build: ')).map((l) => l.message);
    };
    // pip names its index with the password hidden; without build_secrets it uses the default.
    const pipIndex = /^build: Looking in indexes: http:\/\/pip-user:\*+@svc-build-probe\.invalid/;
    expect((await call('POST', '/api/v1/agents', { name: 'sec-build' })).status).toBe(201);
    await setSecret('sec-build', 'PIP_INDEX_URL', index);

    const closed = (await deployFiles(server, owner.key, 'sec-build', files('type: service\n')))
      .body;
    const without = await buildLines(closed.id, 1);
    expect(without.some((l) => pipIndex.test(l))).toBe(false);

    const opened = (
      await deployFiles(server, owner.key, 'sec-build', files('build_secrets: true\n'))
    ).body;
    const all = await buildLines(opened.id, 2);
    expect(all.some((l) => pipIndex.test(l))).toBe(true);
    const token = index.slice(index.indexOf(':token') + 1, index.indexOf('@'));
    for (const line of all) expect(line).not.toContain(token);
  });

  it('gives a scheduled run a value set after the schedule was armed', async () => {
    const first = newValue('cron-v1');
    await deployAndWait(
      'sec-cron',
      { agent_type: 'job' },
      { 'main.py': JOB, 'svc.yaml': 'schedule: "*/5 * * * *"\n' },
      { key: 'API_TOKEN', value: first },
    );
    await eventually(
      async () => held.length,
      (n) => n > 0,
      'the schedule armed',
    );
    const second = newValue('cron-v2');
    await setSecret('sec-cron', 'API_TOKEN', second);
    const timer = held.pop();
    virtualNow = timer?.due ?? 0;
    timer?.fire();
    const runs = await eventually(
      async () =>
        (
          await call<{ items: Array<{ trigger_source: string; state: string }> }>(
            'GET',
            '/api/v1/agents/sec-cron/runs',
          )
        ).body.items,
      (items) => items.some((r) => r.trigger_source === 'cron' && r.state === 'completed'),
      'a completed cron run',
      90_000,
    );
    expect(runs.filter((r) => r.trigger_source === 'cron')).toHaveLength(1);
    const lines = await eventually(
      () => logs('sec-cron'),
      (all) => all.some((l) => l.message.startsWith('job hash')),
      'the cron run logged',
    );
    expect(lines.map((l) => l.message)).toContain(`job hash ${sha256(second)}`);
  });

  it('gives a spawned child its own secrets', async () => {
    const childValue = newValue('child');
    await deployAndWait(
      'sec-child',
      { agent_type: 'job' },
      { 'main.py': JOB },
      {
        key: 'API_TOKEN',
        value: childValue,
      },
    );
    const parentValue = newValue('parent');
    await deployAndWait(
      'sec-parent',
      { agent_type: 'job', spawn_enabled: true, allowed_workers: ['sec-child'] },
      { 'main.py': SPAWNER },
      { key: 'API_TOKEN', value: parentValue },
    );
    const accepted = await call<{ deployment_id: string }>(
      'POST',
      '/api/v1/agents/sec-parent/run',
      {
        payload: {},
      },
    );
    expect(accepted.status).toBe(202);
    const lines = await eventually(
      () => logs('sec-child'),
      (all) => all.some((l) => l.message.startsWith('job hash')),
      'the spawned child logged',
      90_000,
    );
    expect(lines.map((l) => l.message)).toContain(`job hash ${sha256(childValue)}`);
    expect(lines.find((l) => l.message.startsWith('job token'))?.message).toBe('job token ***');
  });

  it("gives an agent in a workspace the workspace's secrets, its own value winning on a shared key", async () => {
    expect((await call('POST', '/api/v1/workspaces', { name: 'sec-team' })).status).toBe(201);
    const workspaceOnly = newValue('ws-only');
    const workspaceShared = newValue('ws-shared');
    const own = newValue('own-shared');
    for (const [key, value] of [
      ['WS_ONLY', workspaceOnly],
      ['SHARED', workspaceShared],
    ] as const) {
      const res = await call('POST', '/api/v1/workspaces/sec-team/secrets', { key, value });
      expect(res.status).toBe(201);
    }
    await deployAndWait(
      'sec-ws-job',
      { agent_type: 'job', workspace_name: 'sec-team' },
      { 'main.py': WORKSPACE_JOB },
      { key: 'SHARED', value: own },
    );
    const accepted = await call<{ deployment_id: string }>(
      'POST',
      '/api/v1/agents/sec-ws-job/run',
      { payload: {} },
    );
    expect(accepted.status).toBe(202);
    const run = await eventually(
      async () =>
        (await call<Deployment>('GET', `/api/v1/deployments/${accepted.body.deployment_id}`)).body,
      (x) => ['completed', 'failed'].includes(x.state),
      'the run finished',
      90_000,
    );
    expect(run.state).toBe('completed');
    const messages = (
      await eventually(
        () => logs('sec-ws-job'),
        (all) => all.some((l) => l.message.startsWith('shared hash')),
        'the run logged',
      )
    ).map((l) => l.message);
    expect(messages).toContain(`workspace hash ${sha256(workspaceOnly)}`);
    expect(messages).toContain(`shared hash ${sha256(own)}`);
    expect(messages).not.toContain(`shared hash ${sha256(workspaceShared)}`);
  });

  it("wrote no value in any response body, stored log line, or line of the API server's and operator's logs", async () => {
    const stored = (
      await Promise.all(['sec-svc', 'sec-job', 'sec-cron', 'sec-child', 'sec-parent'].map(logs))
    )
      .flat()
      .map((l) => l.message);
    expect(stored.length).toBeGreaterThan(5);
    expect(logLines.length).toBeGreaterThan(20);
    for (const value of values) {
      for (const text of [...bodies, ...stored, ...logLines])
        expect(text.includes(value)).toBe(false);
    }
  });

  // Last: it closes the driver. A service replaced by one with new secrets answers out a
  // drain of a few seconds before it stops; closing the driver meanwhile must stop it too.
  it('leaves no agent process behind when closed while replaced services still drain', async () => {
    const agent = await call<Agent>('GET', '/api/v1/agents/sec-svc');
    const url = `${agent.body.url ?? ''}/`;
    let last = '';
    for (const tag of ['drain-a', 'drain-b', 'drain-c']) {
      last = newValue(tag);
      const rotated = await call('POST', '/api/v1/agents/sec-svc/secrets/API_TOKEN/rotate', {
        value: last,
      });
      expect(rotated.status).toBe(200);
    }
    await eventually(
      () => viaEdge(url),
      (r) => r.status === 200 && r.text === sha256(last),
      'the hash of the last value',
    );
    await manager.stop();
    await driver.close();
    // The agent's processes carry its id in their environment (their command lines do not).
    const variable = `SVC_AGENT_ID=${agent.body.id}`;
    const left = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(variable);
        } catch {
          return false;
        }
      });
    expect(left).toEqual([]);
  });
});

/**
 * Tenant isolation on one machine, tried as an attacker with an ordinary
 * account would: tenant B deploys a job agent that tries to read the
 * platform's keys, database and kubeconfig, another tenant's code and process
 * environment, and to reach the platform's loopback services (kube-apiserver,
 * MongoDB, the engine, another agent's service and its Unix socket). Every
 * attempt must fail, while the same agent reads its own code, writes its
 * scratch directory, calls the public API with its own key and reaches an
 * outside address. The other agent's service answers through the edge, and
 * through nothing else: no host TCP port leads to it. Runs the real local
 * driver, the real control plane, the real edge and the real engine.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { Agent } from '../../crds/src/index.js';
import { createLogger } from '../../common/logger.js';
import { AgentIndex } from '../../apiserver/src/edge/agent-index.js';
import { createEdgeServer } from '../../apiserver/src/edge/edge-server.js';
import type { LocalDriver } from '../../operator/src/drivers/local/local-driver.js';
import { requestService } from '../../operator/src/drivers/local/service-request.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { deployFiles, type Deployment } from '../apiserver/deploy/deploy-helpers.js';
import { startEngine, type EngineProcess } from '../engine/support/engine-process.js';
import { harness } from '../harness/env.js';
import { startLocalOperator, type LocalOperator } from './local-operator.js';
import { eventually } from './operator-harness.js';

let server: TestServer;
let tenantA: Caller;
let tenantB: Caller;
let operator: LocalOperator;
let driver: LocalDriver;
let engine: EngineProcess;
let index: AgentIndex;
let edge: HttpServer;
const DOMAIN = 'agents.sandbox.test';
let outside: Server | null = null;
let outsideAddress: string | null = null;
/** A host loopback service that speaks first: anything that reaches it reads {@link BANNER}. */
let loopbackService: Server;
const BANNER = 'host-loopback-service';
const dir = mkdtempSync(join(tmpdir(), 'svc-sandbox-'));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A non-loopback IPv4 address of this machine, where "the outside" listens; null if none. */
function outsideIp(): string | null {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return null;
}

beforeAll(async () => {
  server = await startControlPlaneServer();
  tenantA = await createCaller(server, { tier: 'starter' });
  tenantB = await createCaller(server, { tier: 'starter' });
  engine = await startEngine();
  operator = await startLocalOperator(
    server,
    (ns) => ns === tenantA.namespace || ns === tenantB.namespace,
    { overrides: { vectorsUrl: 'http://127.0.0.1:1', agentDomain: DOMAIN }, dir },
  );
  driver = operator.driver;
  index = new AgentIndex(server.kc, createLogger('apiserver', 'silent'));
  await index.start();
  edge = createEdgeServer({ domain: DOMAIN, index, log: createLogger('edge', 'silent') });
  await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
  // Each reads what a probe sends (and so its end): a socket left with unread input is never
  // closed, and would keep jest from exiting.
  loopbackService = createServer((socket) => socket.resume().end(BANNER));
  await new Promise<void>((resolve) => loopbackService.listen(0, '127.0.0.1', resolve));
  const ip = outsideIp();
  if (ip) {
    outside = createServer((socket) => socket.resume().end('outside-ok'));
    await new Promise<void>((resolve) => outside?.listen(0, ip, resolve));
    const port = (outside.address() as { port: number }).port;
    outsideAddress = `${ip}:${port}`;
  }
}, 120_000);

afterAll(async () => {
  edge?.close();
  await index?.stop();
  outside?.close();
  loopbackService?.close();
  await operator.stop();
  await engine.dispose();
  await server.close();
});

/** GET `url` (an agent's address) through the edge. */
async function viaEdge(url: string): Promise<{ status: number; text: string }> {
  const { host, pathname } = new URL(url);
  const edgePort = (edge.address() as AddressInfo).port;
  const answer = await requestService(`127.0.0.1:${edgePort}`, pathname, {
    headers: { host },
    timeoutMs: 30_000,
  });
  return { status: answer.status, text: answer.body };
}

/**
 * The TCP sockets the pasta of agent `agentId`'s service sandbox listens on, on the host
 * (`addr:port` as /proc/net/tcp writes them): pasta forwards a host port into a sandbox by
 * listening on it.
 */
function pastaListeners(agentId: string): string[] {
  const records = readdirSync(join(dir, 'sandboxes')).filter((f) =>
    f.startsWith(`agent-${agentId}-`),
  );
  expect(records).toHaveLength(1);
  const pids = (
    JSON.parse(readFileSync(join(dir, 'sandboxes', records[0] ?? ''), 'utf8')) as Array<{
      pid: number;
    }>
  ).map((p) => p.pid);
  // (pasta is passt under another name: its process may be called either.)
  const pasta = pids.find((pid) => /^pas(ta|st)/.test(readFileSync(`/proc/${pid}/comm`, 'utf8')));
  expect(pasta).toBeDefined();
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pasta}/fd`)) {
    const link = (() => {
      try {
        return readlinkSync(`/proc/${pasta}/fd/${fd}`);
      } catch {
        return '';
      }
    })();
    const match = /^socket:\[(\d+)\]$/.exec(link);
    if (match) inodes.add(match[1] ?? '');
  }
  const listening: string[] = [];
  for (const table of ['tcp', 'tcp6']) {
    for (const line of readFileSync(`/proc/${pasta}/net/${table}`, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // st 0A is LISTEN; field 10 is the socket's inode.
      if (fields[3] === '0A' && inodes.has(fields[9] ?? '')) listening.push(fields[1] ?? '');
    }
  }
  return listening;
}

async function deployAndWait(
  who: Caller,
  name: string,
  agentType: 'service' | 'job',
  files: Record<string, string>,
): Promise<Deployment> {
  const created = await call(server, 'POST', '/api/v1/agents', {
    key: who.key,
    body: { name, agent_type: agentType, runtime: 'python3.12' },
  });
  expect(created.status).toBe(201);
  const d = (await deployFiles(server, who.key, name, files)).body;
  const final = await eventually(
    () =>
      call<Deployment>(server, 'GET', `/api/v1/deployments/${d.id}`, { key: who.key }).then(
        (r) => r.body,
      ),
    (x) => ['active', 'failed'].includes(String(x.state)),
    `${name} deployed`,
    120_000,
  );
  expect(final).toMatchObject({ state: 'active', error_message: null });
  await eventually(
    () =>
      call<{ status: string; url: string | null }>(server, 'GET', `/api/v1/agents/${name}`, {
        key: who.key,
      }),
    (r) => r.body.status === 'running' && (agentType === 'job' || r.body.url !== null),
    `${name} running`,
  );
  return final;
}

/** The attacker: tries every target in its payload and prints one JSON line of what worked. */
const ATTACKER = `
import json, os, socket, urllib.request

def payload():
    req = urllib.request.Request(
        os.environ["SVC_API_URL"] + "/api/v1/deployments/" + os.environ["SVC_DEPLOYMENT_ID"] + "/payload",
        headers={"authorization": "Bearer " + os.environ["SVC_API_KEY"]})
    return json.load(urllib.request.urlopen(req))["payload"]

def read(path):
    try:
        with open(path, "rb") as f:
            return f.read(200).decode("utf8", "replace")
    except Exception as e:
        return None

def listdir(path):
    try:
        return os.listdir(path)
    except Exception:
        return None

def connect(address):
    # None when nothing answers; otherwise what the far end says to an HTTP request (most
    # services speak only when spoken to), or "connected" when it says nothing.
    host, port = address.rsplit(":", 1)
    try:
        s = socket.create_connection((host.strip("[]"), int(port)), timeout=2)
    except Exception:
        return None
    try:
        s.settimeout(1)
        s.sendall(b"GET /collections HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n")
        data = s.recv(300)
    except Exception:
        data = b""
    s.close()
    return data.decode("utf8", "replace") or "connected"

def connect_unix(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(2)
        s.connect(path)
        s.sendall(b"GET / HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n")
        return s.recv(300).decode("utf8", "replace") or "connected"
    except Exception:
        return None
    finally:
        s.close()

p = payload()
own_key = os.environ["SVC_API_KEY"]
keys_seen = []
for pid in [d for d in os.listdir("/proc") if d.isdigit()] + [str(x) for x in p["pids"]]:
    try:
        env = open("/proc/%s/environ" % pid, "rb").read().decode("utf8", "replace")
    except Exception:
        env = ""
    for item in env.split("\\0"):
        if item.startswith("SVC_API_KEY=") and item[12:] != own_key:
            keys_seen.append(pid)
me = urllib.request.Request(
    os.environ["SVC_API_URL"] + "/api/v1/agents/" + os.environ["SVC_AGENT_ID"],
    headers={"authorization": "Bearer " + own_key})
open("/tmp/scratch.txt", "w").write("scratch")
result = {
    "files": {path: read(path) for path in p["files"]},
    "dirs": {path: listdir(path) for path in p["dirs"]},
    "ports": {address: connect(address) for address in p["ports"]},
    "sockets": {path: connect_unix(path) for path in p["sockets"]},
    "outside": connect(p["outside"]) if p["outside"] else None,
    "other_keys": keys_seen,
    "visible_pids": len([d for d in os.listdir("/proc") if d.isdigit()]),
    "uid": os.getuid(),
    "own_code": read("/app/main.py") is not None,
    "scratch": read("/tmp/scratch.txt"),
    "code_writable": os.access("/app", os.W_OK),
    "public_api": urllib.request.urlopen(me).status,
}
print("RESULT " + json.dumps(result), flush=True)
`;

// It calls the platform's public API while it is imported: a service's process starts before
// pasta has wired its network, and the runner must import this only once it has.
const SERVICE = `
import os
import urllib.request

try:
    with urllib.request.urlopen(os.environ["SVC_API_URL"] + "/api/v1/health", timeout=5) as answer:
        AT_IMPORT = str(answer.status)
except Exception as exc:
    AT_IMPORT = type(exc).__name__

async def app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": ("tenant-a " + AT_IMPORT).encode()})
`;

describe('sandboxed agents on one machine', () => {
  it('runs agents in a sandbox on this machine (bwrap, pasta)', () => {
    expect(driver.sandboxed).toBe(true);
  });

  it("denies an agent the platform's files, other tenants' code, keys and loopback services", async () => {
    const h = harness();
    const a = await deployAndWait(tenantA, 'victim', 'service', { 'main.py': SERVICE });
    const victimId = (
      await call<{ id: string }>(server, 'GET', '/api/v1/agents/victim', { key: tenantA.key })
    ).body.id;
    const victim = (await server.kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'svc.dev',
      version: 'v1alpha1',
      namespace: tenantA.namespace,
      plural: 'agents',
      name: victimId,
    })) as Agent;
    const status = await driver.serviceStatus(victim);
    // The edge reaches the service on its Unix socket, and no host TCP port leads into its sandbox.
    expect(status.endpoint).toMatch(/^unix:\//);
    const victimSocket = String(status.endpoint).slice('unix:'.length);
    const victimUrl = (
      await call<{ url: string }>(server, 'GET', '/api/v1/agents/victim', { key: tenantA.key })
    ).body.url;
    expect(await viaEdge(`${victimUrl}/`)).toEqual({ status: 200, text: 'tenant-a 200' });
    expect(pastaListeners(victimId)).toEqual([]);
    const victimPids = execFileSync('pgrep', ['-f', 'svc_runner serve'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
    expect(victimPids.length).toBeGreaterThan(0);
    await deployAndWait(tenantB, 'attacker', 'job', { 'main.py': ATTACKER });
    const victimBuild = join(dir, 'builds', String(a.id), 'app', 'main.py');
    const mongoPort = new URL(h.mongoUri).port;
    const kubePort = new URL(h.kubeApiServerUrl).port;
    const enginePort = new URL(engine.url).port;
    const bannerPort = String((loopbackService.address() as { port: number }).port);
    const apiPort = new URL(server.base).port;
    // Host loopback inside the sandbox is its own: nothing but the public front doors answers.
    const loopbackPorts = [
      `127.0.0.1:${kubePort}`,
      `127.0.0.1:${mongoPort}`,
      `127.0.0.1:${enginePort}`,
      `127.0.0.1:${bannerPort}`,
      `[::1]:${enginePort}`,
      `[::1]:${bannerPort}`,
    ];
    // Addresses that leave the sandbox: a machine's egress may answer them, never the platform.
    const routedPorts = [
      `10.0.2.2:${enginePort}`,
      `10.0.2.2:${mongoPort}`,
      `10.0.2.2:${kubePort}`,
      `10.0.2.2:${bannerPort}`,
      ...(outsideAddress
        ? [enginePort, bannerPort].map((port) => `${outsideAddress?.split(':')[0]}:${port}`)
        : []),
    ];
    const targets = {
      files: [
        '/etc/shadow',
        h.kubeconfigPath,
        join(h.dir, 'pki', 'ca.key'),
        join(h.dir, 'pki', 'apiserver.key'),
        victimBuild,
        join(dir, 'unconfined-account'),
        '/root/.bash_history',
      ],
      // (/root and /work hold the runtimes' own directories: only those, read-only.)
      dirs: [
        h.dir,
        join(h.dir, 'ferretdb'),
        dir,
        join(dir, 'builds'),
        join(REPO_ROOT, '.dev'),
        dirname(victimSocket),
        '/run/sock',
      ],
      // The victim's socket, at its host path and where its own sandbox sees it.
      sockets: [victimSocket, '/run/sock/app.sock'],
      ports: [...loopbackPorts, ...routedPorts, `127.0.0.1:${apiPort}`],
      pids: victimPids,
      outside: outsideAddress,
    };
    const run = await call<{ deployment_id: string }>(
      server,
      'POST',
      '/api/v1/agents/attacker/run',
      {
        key: tenantB.key,
        body: { payload: targets },
      },
    );
    expect(run.status).toBe(202);
    const line = await eventually(
      async () =>
        (
          await call<{ items: Array<{ message: string }> }>(
            server,
            'GET',
            '/api/v1/agents/attacker/logs?limit=1000',
            { key: tenantB.key },
          )
        ).body.items.find((l) => l.message.startsWith('RESULT ')),
      (l) => l !== undefined,
      'the attacker reported',
      60_000,
    );
    const result = JSON.parse(String(line?.message).slice('RESULT '.length)) as {
      files: Record<string, string | null>;
      dirs: Record<string, string[] | null>;
      ports: Record<string, string | null>;
      sockets: Record<string, string | null>;
      outside: string | null;
      other_keys: string[];
      visible_pids: number;
      uid: number;
      own_code: boolean;
      scratch: string | null;
      code_writable: boolean;
      public_api: number;
    };
    // Nothing of the platform, the host or the other tenant.
    for (const path of targets.files) expect([path, result.files[path]]).toEqual([path, null]);
    for (const path of targets.dirs) expect([path, result.dirs[path]]).toEqual([path, null]);
    for (const address of loopbackPorts)
      expect([address, result.ports[address]]).toEqual([address, null]);
    for (const path of targets.sockets) expect([path, result.sockets[path]]).toEqual([path, null]);
    // The engine's 401, the victim's answer or the banner would mean the host's loopback.
    for (const address of routedPorts)
      expect([address, result.ports[address] ?? '']).not.toEqual([
        address,
        expect.stringMatching(/host-loopback-service|API key|tenant-a/),
      ]);
    // The probe does see a port that answers: the public API's.
    expect(result.ports[`127.0.0.1:${apiPort}`]).toMatch(/^HTTP\/1\.[01] /);
    expect(result.other_keys).toEqual([]);
    expect(result.visible_pids).toBeLessThan(10);
    expect(result.uid).not.toBe(0);
    // Its own code, its scratch, the public API with its own key, and the outside.
    expect(result.own_code).toBe(true);
    expect(result.code_writable).toBe(false);
    expect(result.scratch).toBe('scratch');
    expect(result.public_api).toBe(200);
    if (outsideAddress) expect(result.outside).toBe('outside-ok');
  });

  it('caps the processes and threads an agent may start (the cgroup pids limit)', async () => {
    // At most 2,000 threads, so a machine that did not enforce the limit is not taken down.
    await deployAndWait(tenantB, 'forker', 'job', {
      'main.py': [
        'import threading, time',
        'stop = threading.Event()',
        'started = 0',
        'try:',
        '    for _ in range(2000):',
        '        threading.Thread(target=stop.wait, daemon=True).start()',
        '        started += 1',
        'except RuntimeError:',
        '    pass',
        'print("THREADS", started, flush=True)',
        'stop.set()',
        '',
      ].join('\n'),
    });
    const run = await call<{ deployment_id: string }>(server, 'POST', '/api/v1/agents/forker/run', {
      key: tenantB.key,
      body: { payload: {} },
    });
    expect(run.status).toBe(202);
    const line = await eventually(
      async () =>
        (
          await call<{ items: Array<{ message: string }> }>(
            server,
            'GET',
            '/api/v1/agents/forker/logs?limit=1000',
            { key: tenantB.key },
          )
        ).body.items.find((l) => l.message.startsWith('THREADS ')),
      (l) => l !== undefined,
      'the forker reported',
      60_000,
    );
    const started = Number(String(line?.message).split(' ')[1]);
    // The launcher's limit is 512 tasks for the whole tree (the interpreter's own threads too).
    expect(started).toBeGreaterThan(0);
    expect(started).toBeLessThan(512);
  });

  it('kills a run past its memory_mb and says so', async () => {
    // At most 4 GiB, so a machine that did not enforce the limit is not taken down by the test.
    await deployAndWait(tenantB, 'hog-job', 'job', {
      'main.py': 'blocks = [bytearray(16 * 1024 * 1024) for _ in range(256)]\nprint("allocated")\n',
    });
    const run = await call<{ deployment_id: string }>(
      server,
      'POST',
      '/api/v1/agents/hog-job/run',
      {
        key: tenantB.key,
        body: { payload: {} },
      },
    );
    const final = await eventually(
      () =>
        call<Deployment>(server, 'GET', `/api/v1/deployments/${run.body.deployment_id}`, {
          key: tenantB.key,
        }).then((r) => r.body),
      (x) => ['completed', 'failed'].includes(String(x.state)),
      'the hog run ended',
      60_000,
    );
    expect(final.state).toBe('failed');
    expect(String(final.error_message)).toMatch(/memory/);
  });
});

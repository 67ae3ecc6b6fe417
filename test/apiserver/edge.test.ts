/** The agent edge against the real kube-apiserver: routing by Host, waking, errors, WebSockets. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EventEmitter } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect } from 'node:net';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { ANNOTATIONS, API_GROUP, API_VERSION, PLURALS, type Agent } from '../../crds/src/index.js';
import { createLogger } from '../../common/logger.js';
import { AgentIndex } from '../../apiserver/src/edge/agent-index.js';
import { createEdgeServer } from '../../apiserver/src/edge/edge-server.js';
import { agentResource } from '../factories/custom-resources.js';
import { createNamespace, kubeConfig } from '../harness/env.js';
import { resourceChanges, waitFor, type ChangeSource } from '../harness/wait.js';
import { freePort } from '../../common/ports.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const kc = kubeConfig();
const api = kc.makeApiClient(CustomObjectsApi);
let namespace: string;
let index: AgentIndex;
let edge: Server;
let edgePort: number;
let upstream: Server;
let upstreamPort: number;
/** The same agent on a Unix socket, as the local driver's services are reached. */
let unixUpstream: Server;
const socketDir = mkdtempSync(join(tmpdir(), 'svc-edge-'));
const upstreamSocket = join(socketDir, 'app.sock');
/** The agent's side of every WebSocket tunnel the edge opened. */
const tunnels: Duplex[] = [];
const DOMAIN = 'agents.test';

beforeAll(async () => {
  namespace = await createNamespace(kc, 'edge');
  index = new AgentIndex(kc, createLogger('edge', 'silent'));
  await index.start();
  edge = createEdgeServer({
    domain: DOMAIN,
    index,
    log: createLogger('edge', 'silent'),
    wakeTimeoutMs: 4000,
  });
  await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
  edgePort = (edge.address() as AddressInfo).port;
  upstream = upstreamServer();
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;
  unixUpstream = upstreamServer();
  await new Promise<void>((resolve) => unixUpstream.listen(upstreamSocket, resolve));
});

/** The agent: answers with its path and the request id it saw, echoes a WebSocket tunnel. */
function upstreamServer(): Server {
  const server = createServer((req, res) => {
    res.setHeader('x-seen-request-id', String(req.headers['svc-request-id'] ?? ''));
    res.end(`hello from ${req.url}`);
  });
  server.on('upgrade', (_req, socket: Duplex) => {
    tunnels.push(socket);
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
    );
    socket.on('data', (d: Buffer) => socket.write(d));
    // As a WebSocket server does: the connection ends when the other side's does.
    socket.on('end', () => socket.end());
  });
  return server;
}

afterAll(async () => {
  // The edge's keep-alive connections to the upstream would keep both servers (and jest) alive.
  edge.closeAllConnections();
  upstream.closeAllConnections();
  unixUpstream.closeAllConnections();
  edge.close();
  upstream.close();
  unixUpstream.close();
  rmSync(socketDir, { recursive: true, force: true });
  await index.stop();
  await kc.makeApiClient(CoreV1Api).deleteNamespace({ name: namespace });
});

const coords = () => ({ group: API_GROUP, version: API_VERSION, namespace, plural: PLURALS.Agent });

/** Creates an agent with an address, deployed, with `endpoint` as its serving address. */
async function agentAt(label: string, endpoint: string | null, deployed = true): Promise<Agent> {
  const body = agentResource(namespace, { name: label.slice(0, -7), addressLabel: label });
  const created = (await api.createNamespacedCustomObject({ ...coords(), body })) as Agent;
  return (await api.replaceNamespacedCustomObjectStatus({
    ...coords(),
    name: created.metadata.name ?? '',
    body: { ...created, status: { status: 'running', deployed, endpoint } },
  })) as Agent;
}

/** Waits (up to 5 s) until `check` holds, checking again whenever `wakeOn` reports a change. */
async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  wakeOn: ChangeSource,
): Promise<void> {
  await waitFor(what, check, { timeoutMs: 5000, wakeOn });
}

/** Changes the edge's index of agents took in from its watch. */
const indexChanges: ChangeSource = (changed) => index.onChange(changed);

/** Changes of the Agents in this file's namespace, as the API has them. */
const agentChanges: ChangeSource = (changed) => resourceChanges(kc, 'Agent', namespace)(changed);

/** The `events` of `emitter` (a socket's data, its close). */
function eventsOf(emitter: EventEmitter, ...events: string[]): ChangeSource {
  return (changed) => {
    for (const event of events) emitter.on(event, changed);
    return () => {
      for (const event of events) emitter.off(event, changed);
    };
  };
}

/** `agent` as the API has it now. */
async function latest(agent: Agent): Promise<Agent> {
  return (await api.getNamespacedCustomObject({
    ...coords(),
    name: agent.metadata.name ?? '',
  })) as Agent;
}

/** A request to the edge with a Host header (fetch refuses to set one). */
function viaEdge(
  host: string,
  path = '/',
  port = edgePort,
): Promise<{
  status: number;
  headers: Record<string, string>;
  text: () => Promise<string>;
  json: () => Promise<unknown>;
}> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = Object.fromEntries(
          Object.entries(res.headers).map(([k, v]) => [k, String(v)]),
        );
        resolve({
          status: res.statusCode ?? 0,
          headers,
          text: async () => body,
          json: async () => JSON.parse(body) as unknown,
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('agent edge', () => {
  it('returns 404 AGENT_NOT_FOUND, with svc-request-id, for a hostname that is not an agent address', async () => {
    const res = await viaEdge(`not-an-agent.${DOMAIN}`);
    expect(res.status).toBe(404);
    expect(res.headers['svc-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toEqual({
      error: { code: 'AGENT_NOT_FOUND', message: expect.any(String) },
    });
  });

  it('returns 404 AGENT_NOT_REACHABLE for a well-formed address nothing answers, or an agent not deployed', async () => {
    expect(
      ((await (await viaEdge(`nobody-zzzzzz.${DOMAIN}`)).json()) as { error: { code: string } })
        .error.code,
    ).toBe('AGENT_NOT_REACHABLE');
    await agentAt('undeployed-aaaaaa', `127.0.0.1:${upstreamPort}`, false);
    await until(
      "the edge's index to have undeployed-aaaaaa's status",
      () => Boolean(index.find('undeployed-aaaaaa')?.status),
      indexChanges,
    );
    const res = await viaEdge(`undeployed-aaaaaa.${DOMAIN}`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'AGENT_NOT_REACHABLE',
    );
  });

  it('proxies to the agent, path and all, and passes the request id along', async () => {
    await agentAt('hello-bbbbbb', `127.0.0.1:${upstreamPort}`);
    await until(
      "the edge's index to have hello-bbbbbb with its endpoint",
      () => Boolean(index.find('hello-bbbbbb')?.status?.endpoint),
      indexChanges,
    );
    const res = await viaEdge(`hello-bbbbbb.${DOMAIN}:${edgePort}`, '/greet?x=1');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello from /greet?x=1');
    expect(res.headers['x-seen-request-id']).toBe(res.headers['svc-request-id']);
  });

  it('returns 502 AGENT_UPSTREAM_FAILURE when the agent does not answer the connection', async () => {
    const closed = await freePort();
    await agentAt('down-cccccc', `127.0.0.1:${closed}`);
    await until(
      "the edge's index to have down-cccccc with its endpoint",
      () => Boolean(index.find('down-cccccc')?.status?.endpoint),
      indexChanges,
    );
    const res = await viaEdge(`down-cccccc.${DOMAIN}`);
    expect(res.status).toBe(502);
    expect(res.headers['svc-request-id']).toBeTruthy();
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'AGENT_UPSTREAM_FAILURE',
    );
  });

  it('wakes an agent scaled to zero and holds the request until it serves', async () => {
    const agent = await agentAt('sleepy-dddddd', null);
    await until(
      "the edge's index to have sleepy-dddddd deployed",
      () => Boolean(index.find('sleepy-dddddd')?.status?.deployed),
      indexChanges,
    );
    const pending = viaEdge(`sleepy-dddddd.${DOMAIN}`, '/woken');
    // The edge marks activity; the operator would then start the agent and publish its endpoint.
    await until(
      'the activity mark on sleepy-dddddd',
      async () => Boolean((await latest(agent)).metadata.annotations?.[ANNOTATIONS.lastActivity]),
      agentChanges,
    );
    const marked = await latest(agent);
    await api.replaceNamespacedCustomObjectStatus({
      ...coords(),
      name: agent.metadata.name ?? '',
      body: { ...marked, status: { ...marked.status, endpoint: `127.0.0.1:${upstreamPort}` } },
    });
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello from /woken');
  });

  it('returns 504 AGENT_UPSTREAM_FAILURE when a woken agent does not come up in time', async () => {
    await agentAt('never-eeeeee', null);
    await until(
      "the edge's index to have never-eeeeee deployed",
      () => Boolean(index.find('never-eeeeee')?.status?.deployed),
      indexChanges,
    );
    // An edge of its own that gives a waking agent a quarter of a second, not the file's 4 s.
    const impatient = createEdgeServer({
      domain: DOMAIN,
      index,
      log: createLogger('edge', 'silent'),
      wakeTimeoutMs: 250,
    });
    await new Promise<void>((resolve) => impatient.listen(0, '127.0.0.1', resolve));
    const res = await viaEdge(
      `never-eeeeee.${DOMAIN}`,
      '/',
      (impatient.address() as AddressInfo).port,
    ).finally(() => impatient.close());
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'AGENT_UPSTREAM_FAILURE',
    );
  });

  it('passes WebSocket upgrades through and records that the agent serves WebSockets', async () => {
    const agent = await agentAt('socket-ffffff', `127.0.0.1:${upstreamPort}`);
    await until(
      "the edge's index to have socket-ffffff with its endpoint",
      () => Boolean(index.find('socket-ffffff')?.status?.endpoint),
      indexChanges,
    );
    const socket = connect(edgePort, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (d: Buffer) => received.push(d));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `GET /ws HTTP/1.1\r\nHost: socket-ffffff.${DOMAIN}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    await until(
      'the 101 Switching Protocols answer',
      () => Buffer.concat(received).toString().includes('101 Switching Protocols'),
      eventsOf(socket, 'data'),
    );
    socket.write('ping-frame');
    await until(
      'ping-frame to come back through the tunnel',
      () => Buffer.concat(received).toString().endsWith('ping-frame'),
      eventsOf(socket, 'data'),
    );
    socket.destroy();
    // The client left: the edge closes the agent's side of the tunnel too.
    await until(
      "the agent's side of the tunnel to close",
      () => tunnels.length === 1 && tunnels[0]!.destroyed,
      eventsOf(tunnels[0]!, 'close'),
    );
    await until(
      'socket-ffffff to be marked as serving WebSockets',
      async () => (await latest(agent)).status?.servesWebsocket === true,
      agentChanges,
    );
  });

  it("proxies to an agent on a Unix socket (the local driver's endpoints), WebSockets too", async () => {
    await agentAt('local-gggggg', `unix:${upstreamSocket}`);
    await until(
      "the edge's index to have local-gggggg with its endpoint",
      () => Boolean(index.find('local-gggggg')?.status?.endpoint),
      indexChanges,
    );
    const res = await viaEdge(`local-gggggg.${DOMAIN}`, '/over-unix');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello from /over-unix');
    expect(res.headers['x-seen-request-id']).toBe(res.headers['svc-request-id']);
    const socket = connect(edgePort, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (d: Buffer) => received.push(d));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `GET /ws HTTP/1.1\r\nHost: local-gggggg.${DOMAIN}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    await until(
      'the 101 Switching Protocols answer',
      () => Buffer.concat(received).toString().includes('101 Switching Protocols'),
      eventsOf(socket, 'data'),
    );
    socket.write('unix-frame');
    await until(
      'unix-frame to come back through the tunnel',
      () => Buffer.concat(received).toString().endsWith('unix-frame'),
      eventsOf(socket, 'data'),
    );
    socket.destroy();
    await until(
      "the agent's side of the tunnel to close",
      () => tunnels.length === 2 && tunnels[1]!.destroyed,
      eventsOf(tunnels[1]!, 'close'),
    );
  });
});

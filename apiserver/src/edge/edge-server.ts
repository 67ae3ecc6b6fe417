/**
 * The agent edge: routes `<name>-<6 chars>.<agent_domain>` by Host header to
 * the agent serving it, waking an agent scaled to zero and holding the
 * request until it answers. Every response carries `svc-request-id`; the
 * edge's own errors are `{error:{code,message}}`: 404 AGENT_NOT_FOUND (not an
 * agent address; nothing contacted), 404 AGENT_NOT_REACHABLE (nothing running
 * identifies as that agent), 502/504 AGENT_UPSTREAM_FAILURE. WebSocket
 * upgrades pass through. An agent's endpoint is `host:port` (a cluster
 * Service) or `unix:/path` (the local driver's sandboxed services, which no
 * host TCP port reaches: only a process that can open the socket file, this
 * edge, does; README "Isolation").
 */
import { tagRoute } from '../../../common/metrics/http-metrics.js';
import { randomUUID } from 'node:crypto';
import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type Socket } from 'node:net';
import { endpointTarget, type EndpointTarget } from '../../../common/agent-endpoint.js';
import { ANNOTATIONS, type Agent } from '../../../crds/src/index.js';
import type { Logger } from '../../../common/logger.js';
import { addressLabelOf } from './address.js';
import { awaitConnectable } from './connectable.js';
import { TtlCache } from '../../../common/ttl-cache.js';
import type { AgentIndex } from './agent-index.js';
import type { UsageRecorder } from '../usage/usage-writer.js';

/** Options of the edge. */
export interface EdgeOptions {
  domain: string;
  index: AgentIndex;
  log: Logger;
  /** How long a request waits for an agent to wake (default 30 s). */
  wakeTimeoutMs?: number;
  /** How long the agent has to start answering (default 60 s). */
  upstreamTimeoutMs?: number;
  /** Where each request an agent answered is recorded, with its bytes in and out. */
  usage?: UsageRecorder;
}

/** An edge error. */
class EdgeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * How long a request waits for an address it has not reached yet (just woken, newly deployed)
 * to accept connections: on Kubernetes a Service refuses for a moment after its pod is Ready.
 */
const REACHABLE_WAIT_MS = 3_000;

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

/** Builds the edge's HTTP server (not yet listening). */
export function createEdgeServer(opts: EdgeOptions): Server {
  const { index, domain, log } = opts;
  /** Addresses this edge has connected to (cleared past 10,000 of them). */
  const reached = new TtlCache<true>(Infinity);

  /** The agent for a request and the address to send it to, waking it when needed. */
  async function route(req: IncomingMessage): Promise<{ agent: Agent; target: EndpointTarget }> {
    const label = addressLabelOf(req.headers.host, domain);
    if (!label)
      throw new EdgeError(404, 'AGENT_NOT_FOUND', 'This hostname is not an agent address.');
    let agent = index.find(label);
    const reachable = (a: Agent | undefined) =>
      a &&
      a.status?.deployed &&
      a.spec.desiredState === 'running' &&
      !a.metadata.annotations?.[ANNOTATIONS.usagePaused] &&
      !a.metadata.deletionTimestamp;
    const notReachable = () =>
      new EdgeError(404, 'AGENT_NOT_REACHABLE', 'No running agent answers at this address.');
    if (!reachable(agent)) throw notReachable();
    const woke = !agent?.status?.endpoint;
    let deadline = Infinity;
    if (woke) {
      await index.markActivity(agent as Agent, true);
      deadline = Date.now() + (opts.wakeTimeoutMs ?? 30_000);
      while (!agent?.status?.endpoint) {
        if (Date.now() > deadline)
          throw new EdgeError(
            504,
            'AGENT_UPSTREAM_FAILURE',
            'The agent did not answer in time; retry.',
          );
        // An in-memory lookup: polled often, the wait ends soon after the watch brings the address.
        await new Promise((r) => setTimeout(r, 5));
        agent = index.find(label);
        if (!reachable(agent)) throw notReachable();
      }
    } else {
      void index.markActivity(agent as Agent);
    }
    const endpoint = agent?.status?.endpoint;
    if (!agent || !endpoint) throw notReachable();
    const target = endpointTarget(endpoint);
    // A woken agent's address (the same Service as before it slept), or one this edge has not
    // reached yet (a new deploy, another edge's wake), may refuse for a moment: wait for it.
    if (woke || !reached.get(endpoint)) {
      if (await awaitConnectable(target, Math.min(deadline, Date.now() + REACHABLE_WAIT_MS)))
        reached.set(endpoint, true);
    }
    return { agent, target };
  }

  function forwardedHeaders(
    req: IncomingMessage,
    requestId: string,
  ): Record<string, string | string[]> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers['x-forwarded-host'] = req.headers.host ?? '';
    headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
    headers['svc-request-id'] = requestId;
    return headers;
  }

  function fail(res: ServerResponse, err: unknown): void {
    const e =
      err instanceof EdgeError
        ? err
        : new EdgeError(502, 'AGENT_UPSTREAM_FAILURE', 'The agent could not be reached; retry.');
    if (!(err instanceof EdgeError)) log.warn('edge upstream failure', { err: String(err) });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(e.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: e.code, message: e.message } }));
  }

  /**
   * Records the request as the agent's usage once its answer is done (or cut
   * off), with the bytes of the body it sent and of the answer's body; the
   * returned counter takes the answer's bytes.
   */
  function meter(agent: Agent, req: IncomingMessage, res: ServerResponse): { out: number } {
    const counted = { out: 0 };
    const usage = opts.usage;
    if (!usage) return counted;
    let bytesIn = 0;
    req.on('data', (chunk: Buffer) => (bytesIn += chunk.length));
    res.once('close', () => {
      const environment = (agent.metadata.namespace ?? '').startsWith('svc-test-')
        ? 'test'
        : 'live';
      usage.record({
        accountId: agent.spec.userId,
        environment,
        agentId: agent.metadata.name ?? null,
        kind: 'edge_request',
        bytes: bytesIn + counted.out,
      });
    });
    return counted;
  }

  const server = createServer((req, res) => {
    const requestId = randomUUID();
    res.setHeader('svc-request-id', requestId);
    route(req).then(
      ({ agent, target }) => {
        tagRoute(req, 'agent');
        const counted = meter(agent, req, res);
        const upstream = request({
          ...target,
          method: req.method,
          path: req.url,
          headers: forwardedHeaders(req, requestId),
        });
        upstream.setTimeout(opts.upstreamTimeoutMs ?? 60_000, () =>
          upstream.destroy(
            new EdgeError(
              504,
              'AGENT_UPSTREAM_FAILURE',
              'The agent did not answer in time; retry.',
            ),
          ),
        );
        upstream.on('response', (answer) => {
          const headers: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(answer.headers)) {
            if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
          }
          res.writeHead(answer.statusCode ?? 502, { ...headers, 'svc-request-id': requestId });
          answer.on('data', (chunk: Buffer) => (counted.out += chunk.length));
          answer.pipe(res);
        });
        upstream.on('error', (err) => fail(res, err));
        req.pipe(upstream);
      },
      (err: unknown) => fail(res, err),
    );
  });

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const requestId = randomUUID();
    const refuse = (err: unknown) => {
      const e =
        err instanceof EdgeError
          ? err
          : new EdgeError(502, 'AGENT_UPSTREAM_FAILURE', 'The agent could not be reached; retry.');
      const body = JSON.stringify({ error: { code: e.code, message: e.message } });
      socket.end(
        `HTTP/1.1 ${e.status} ${e.status === 404 ? 'Not Found' : 'Bad Gateway'}\r\ncontent-type: application/json\r\nsvc-request-id: ${requestId}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    };
    route(req).then(({ agent, target }) => {
      const address =
        'socketPath' in target
          ? { path: target.socketPath }
          : { host: target.host, port: target.port };
      const upstream = connect(address, () => {
        const lines = [`${req.method} ${req.url} HTTP/1.1`];
        for (let i = 0; i < req.rawHeaders.length; i += 2)
          lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
        lines.push(`svc-request-id: ${requestId}`, '', '');
        upstream.write(lines.join('\r\n'));
        if (head.length > 0) upstream.write(head);
        upstream.once('data', (first: Buffer) => {
          if (first.subarray(0, 12).toString('latin1') === 'HTTP/1.1 101')
            void index.markServesWebsocket(agent);
        });
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      // Before the agent answered anything, a failure is refused with the contract's 502, once.
      let refused = false;
      const refuseOnce = (err: unknown) => {
        if (refused || !socket.writable) return;
        refused = true;
        refuse(err);
      };
      upstream.on('error', (err) => (upstream.bytesRead > 0 ? socket.destroy() : refuseOnce(err)));
      socket.on('error', () => upstream.destroy());
      // A tunnel lives as long as both ends: when either closes, the other is closed too.
      socket.once('close', () => upstream.destroy());
      upstream.once('close', () => {
        if (upstream.bytesRead > 0) socket.end();
        else
          refuseOnce(
            new EdgeError(502, 'AGENT_UPSTREAM_FAILURE', 'The agent closed the connection; retry.'),
          );
      });
    }, refuse);
  });
  return server;
}

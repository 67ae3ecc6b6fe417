/**
 * The engine's HTTP server (node:http, no framework: the request path is short and hot).
 * Answers in Qdrant's envelopes, `{result, status: "ok", time}` and
 * `{status: {error}, time}`, echoes or assigns an `x-request-id`, and logs failures with it.
 * Every request but the health checks must carry the API key (api-key.ts); without it the
 * answer is 401, as Qdrant's.
 */
import { tagRoute } from '../../../common/metrics/http-metrics.js';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '../../../common/logger.js';
import { EngineError } from '../errors.js';
import { collectionRoutes } from '../routes/collections.js';
import { readRoutes } from '../routes/reads.js';
import { writeRoutes } from '../routes/writes.js';
import type { Engine } from '../store/engine.js';
import { ApiKeyCheck } from './api-key.js';
import { parseJsonBody } from './json-body.js';
import { Router } from './router.js';

/** The version this engine reports at `GET /`; clients check compatibility against it. */
export const QDRANT_COMPATIBLE_VERSION = '1.16.0';

/** Server limits and credentials. */
export interface ServerOptions {
  maxBodyBytes: number;
  /** The key every request but the health checks must carry. */
  apiKey: string;
}

/** What Qdrant answers without an API key: the liveness and readiness checks. */
const OPEN_PATHS = /^\/(healthz|livez|readyz)$/;

function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(
          new EngineError(
            413,
            `Payload error: JSON payload (${size} bytes) is larger than allowed (limit: ${limit} bytes).`,
          ),
        );
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    // A search's body comes in one chunk: no copy then.
    request.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/**
 * A request target made only of these characters is its own path, as the URL parser would
 * give it: nothing to percent-encode, no dot segments, no query, and no `//` at the start
 * (which the parser reads as a host).
 */
const PLAIN_PATH = /^\/(?:[A-Za-z0-9_-][A-Za-z0-9_/-]*)?$/;

/** The path and query of a request target; plain paths skip the URL parser. */
function requestTarget(target: string): { pathname: string; searchParams: URLSearchParams } {
  if (PLAIN_PATH.test(target)) return { pathname: target, searchParams: new URLSearchParams() };
  return new URL(target, 'http://engine');
}

/**
 * Seconds since `started` (a `performance.now()`), the envelope's `time`. A function of the
 * module rather than a closure per request: tsx, which runs the engine, keeps function
 * names, and names each closure bound to a `const` with an Object.defineProperty call.
 */
function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}

function send(response: ServerResponse, status: number, body: unknown, requestId: string): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': requestId,
  });
  response.end(text);
}

/**
 * `GET /telemetry`, where Qdrant reports its state: the engine's name and version, its
 * collections, and what recovery set aside (records of the write-ahead logs that would not
 * replay, each now a file in its collection's `wal-quarantine/`). `quarantined_records`
 * counts the files there now; `quarantined_at_startup` those this process set aside.
 */
function telemetry(engine: Engine) {
  const { quarantinedAtOpen, quarantined } = engine.recovery();
  return {
    app: { name: 'svc-engine', version: QDRANT_COMPATIBLE_VERSION },
    collections: { number_of_collections: engine.names().length },
    recovery: {
      quarantined_records: Object.values(quarantined).reduce((sum, n) => sum + n, 0),
      quarantined_at_startup: quarantinedAtOpen,
      quarantined_by_collection: quarantined,
    },
  };
}

/** Builds the route table for an engine. */
export function engineRouter(engine: Engine): Router {
  const router = new Router();
  collectionRoutes(router, engine);
  writeRoutes(router, engine);
  readRoutes(router, engine);
  router.on('GET', '/telemetry', () => telemetry(engine));
  return router;
}

/** Creates (does not start) the HTTP server of an engine. */
export function createEngineServer(engine: Engine, logger: Logger, options: ServerOptions): Server {
  const router = engineRouter(engine);
  const apiKey = new ApiKeyCheck(options.apiKey);
  const server = createServer(async (request, response) => {
    const started = performance.now();
    const requestId = (request.headers['x-request-id'] as string | undefined) ?? randomUUID();
    const url = requestTarget(request.url ?? '/');
    const method = request.method ?? 'GET';
    if (method === 'GET' && OPEN_PATHS.test(url.pathname)) {
      response.writeHead(200, { 'content-type': 'text/plain', 'x-request-id': requestId });
      response.end(`${url.pathname.slice(1)} check passed`);
      return;
    }
    const refusal = apiKey.refusal(request.headers);
    if (refusal !== undefined) {
      send(response, 401, { status: { error: refusal }, time: secondsSince(started) }, requestId);
      return;
    }
    // Qdrant answers its root with bare version info, no envelope; clients check it.
    // Qdrant leaves it open; here it needs the key too, which its clients send anyway.
    if (method === 'GET' && url.pathname === '/') {
      send(
        response,
        200,
        { title: 'qdrant - vector search engine', version: QDRANT_COMPATIBLE_VERSION },
        requestId,
      );
      return;
    }
    try {
      const route = router.match(method, url.pathname);
      if (route === undefined) throw new EngineError(404, `Not found: ${url.pathname}`);
      if (route === 'method') throw new EngineError(405, `Method ${method} not allowed`);
      tagRoute(request, route.pattern);
      const body = parseJsonBody(await readBody(request, options.maxBodyBytes));
      const result = await route.handler({ params: route.params, query: url.searchParams, body });
      send(response, 200, { result, status: 'ok', time: secondsSince(started) }, requestId);
    } catch (error) {
      if (error instanceof EngineError) {
        send(
          response,
          error.status,
          { status: { error: error.message }, time: secondsSince(started) },
          requestId,
        );
        return;
      }
      logger.error('request failed', { request_id: requestId, method, path: url.pathname, error });
      send(
        response,
        500,
        {
          status: { error: `Service internal error: ${(error as Error).message}` },
          time: secondsSince(started),
        },
        requestId,
      );
    }
  });
  server.keepAliveTimeout = 65_000;
  return server;
}

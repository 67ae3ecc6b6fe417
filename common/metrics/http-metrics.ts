/**
 * Request counts and latency of an HTTP front door, by route template (never
 * the raw path: `/api/v1/agents/:agent`, not an agent's name), method and
 * status code, so the number of series is bounded whatever callers send.
 * A route handler names its template on the request with {@link tagRoute};
 * a request no route took is counted as `unmatched`.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Counter, Histogram, type Registry } from 'prom-client';

const ROUTE = Symbol('svc.metrics.route');
const MEASURED = Symbol('svc.metrics.measured');

/** What {@link HttpMetrics.instrument} keeps on a response until it finishes. */
interface MeasuredResponse {
  req: IncomingMessage;
  started: bigint;
  done: boolean;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Latency buckets in seconds, from a cached read to a slow deploy upload. */
export const HTTP_DURATION_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/** Names the route template that answers `req`, for its metrics. */
export function tagRoute(req: IncomingMessage, template: string): void {
  (req as IncomingMessage & { [ROUTE]?: string })[ROUTE] = template;
}

/** The route template tagged on `req`, or `unmatched`. */
export function routeOf(req: IncomingMessage): string {
  return (req as IncomingMessage & { [ROUTE]?: string })[ROUTE] ?? 'unmatched';
}

/** The HTTP series of one process, shared by its front doors (told apart by `front`). */
export class HttpMetrics {
  private readonly requests: Counter<'front' | 'route' | 'method' | 'code'>;
  private readonly duration: Histogram<'front' | 'route' | 'method'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests answered, by front door, route template, method and status code.',
      labelNames: ['front', 'route', 'method', 'code'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'Time from a request arriving to its response finishing, by front door, route template and method.',
      labelNames: ['front', 'route', 'method'],
      buckets: HTTP_DURATION_BUCKETS,
      registers: [registry],
    });
  }

  /** Counts one answered request. */
  observe(front: string, req: IncomingMessage, status: number, seconds: number): void {
    const method = METHODS.has(req.method ?? '') ? (req.method as string) : 'OTHER';
    const route = routeOf(req);
    this.requests.inc({ front, route, method, code: String(status) });
    this.duration.observe({ front, route, method }, seconds);
  }

  /**
   * Measures every request `server` answers as front door `front`: from its
   * arrival to its response finishing (or the connection closing first).
   * `also` sees each measured request too (a component's own series).
   */
  instrument(
    server: Server,
    front: string,
    also?: (route: string, status: number, seconds: number) => void,
  ): void {
    // One listener for every response (its state on the response): a closure made per
    // request costs more than the counting itself under tsx, which names each one.
    const observe = this.observe.bind(this);
    function finished(this: ServerResponse & { [MEASURED]?: MeasuredResponse }): void {
      const measured = this[MEASURED];
      if (!measured || measured.done) return;
      measured.done = true;
      const seconds = Number(process.hrtime.bigint() - measured.started) / 1e9;
      observe(front, measured.req, this.statusCode, seconds);
      also?.(routeOf(measured.req), this.statusCode, seconds);
    }
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      (res as ServerResponse & { [MEASURED]?: MeasuredResponse })[MEASURED] = {
        req,
        started: process.hrtime.bigint(),
        done: false,
      };
      res.once('finish', finished);
      res.once('close', finished);
    });
  }
}

/**
 * Cross-origin access to the vector plane for the web dashboard, which the
 * control plane serves from its own origin: requests from an allowed origin
 * get `Access-Control-Allow-Origin`, and their preflights (`OPTIONS` with
 * `Access-Control-Request-Method`) are answered here, before the routes.
 * Credentials are bearer keys the page sends itself, never cookies, so no
 * `Access-Control-Allow-Credentials`. Other origins get no CORS headers: the
 * browser keeps their pages from reading answers, as before.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS = 'authorization, content-type, if-match';
const EXPOSED_HEADERS = 'etag, x-collection-status, x-collection-source, svc-request-id';

/** `handler` answering the browsers of `origins` (exact `scheme://host[:port]` strings). */
export function withCors(handler: RequestListener, origins: readonly string[]): RequestListener {
  const allowed = new Set(origins);
  return (req: IncomingMessage, res: ServerResponse) => {
    const origin = req.headers.origin;
    if (typeof origin !== 'string' || !allowed.has(origin)) return handler(req, res);
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'Origin');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.writeHead(204, {
        'access-control-allow-methods': ALLOWED_METHODS,
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': '600',
      });
      res.end();
      return;
    }
    res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
    return handler(req, res);
  };
}

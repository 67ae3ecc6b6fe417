/**
 * Engine endpoints the service deliberately does not offer: 404 NOT_FOUND
 * "Unsupported endpoint", before authentication, since retrying with a key
 * would not help. Snapshots, telemetry, metrics, cluster, locks and shards
 * (the contract's list); recommend and discover (the engine answers them
 * through points/query), the update batch, facets (a collection route the
 * contract does not list), the search matrix and vector deletion; aliases and issues (names across collections, and the
 * server's own state, which tenants do not share).
 */
import type { Middleware } from 'koa';
import { VectorNotFound } from '../errors/catalogue.js';

const UNSUPPORTED = [
  /^\/(?:snapshots|telemetry|metrics|cluster|locks|aliases|issues)(?:\/|$)/,
  /^\/collections\/[^/]+\/(?:snapshots|shards|cluster|facet|aliases)(?:\/|$)/,
  /^\/collections\/[^/]+\/points\/(?:snapshots|shards|recommend|discover|batch)(?:\/|$)/,
  /^\/collections\/[^/]+\/points\/search\/matrix(?:\/|$)/,
  /^\/collections\/[^/]+\/points\/vectors\/delete$/,
];

/**
 * The engine's alias update, `POST /collections/aliases`; other methods on
 * that path address a collection named `aliases`.
 */
const ALIAS_UPDATE = /^\/collections\/aliases$/;

/** True when `path` (with or without the `/api/v1` and workspace prefix) is unsupported. */
export function isUnsupportedEndpoint(path: string, method = 'GET'): boolean {
  const bare = path.replace(/^\/api\/v1(?:\/workspaces\/[^/]+)?(?=\/)/, '');
  if (method === 'POST' && ALIAS_UPDATE.test(bare)) return true;
  return UNSUPPORTED.some((pattern) => pattern.test(bare));
}

/** Answers unsupported endpoints. */
export function unsupportedEndpoints(): Middleware {
  return async (ctx, next) => {
    if (isUnsupportedEndpoint(ctx.path, ctx.method))
      throw new VectorNotFound('Unsupported endpoint');
    await next();
  };
}

/**
 * Engine endpoints the service deliberately does not offer (snapshots,
 * telemetry, metrics, cluster, locks, shards): 404 NOT_FOUND "Unsupported
 * endpoint", before authentication, since retrying with a key would not help.
 */
import type { Middleware } from 'koa';
import { VectorNotFound } from '../errors/catalogue.js';

const UNSUPPORTED = [
  /^\/(?:snapshots|telemetry|metrics|cluster|locks)(?:\/|$)/,
  /^\/collections\/[^/]+\/(?:snapshots|shards|cluster)(?:\/|$)/,
  /^\/collections\/[^/]+\/points\/(?:snapshots|shards)(?:\/|$)/,
];

/** True when `path` (with or without the `/api/v1` and workspace prefix) is unsupported. */
export function isUnsupportedEndpoint(path: string): boolean {
  const bare = path.replace(/^\/api\/v1(?:\/workspaces\/[^/]+)?(?=\/)/, '');
  return UNSUPPORTED.some((pattern) => pattern.test(bare));
}

/** Answers unsupported endpoints. */
export function unsupportedEndpoints(): Middleware {
  return async (ctx, next) => {
    if (isUnsupportedEndpoint(ctx.path)) throw new VectorNotFound('Unsupported endpoint');
    await next();
  };
}

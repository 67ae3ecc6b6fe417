/** The vector data-plane front door (`/api/v1`, envelope `{error:{code,message}}`) as a Koa app. */
import Router from '@koa/router';
import Koa from 'koa';
import type { Logger } from '../../../common/logger.js';
import { VectorMethodNotAllowed } from '../errors/catalogue.js';
import { requestContext } from '../middleware/request-context.js';
import { NATIVE_CREATE } from './collections/routes.js';
import type { CollectionService } from './collections/service.js';
import type { VectorState } from './context.js';
import type { Engines } from './engines.js';
import { vectorErrors } from './error-envelope.js';
import type { VectorGuard } from './guards.js';
import type { StorageMeter } from './storage/storage-meter.js';
import type { UpsertLimits } from './points/routes.js';
import { vectorRoutes } from './routes.js';
import { mountVectorRoutes, type VectorRoute } from './routing.js';
import type { SchemaService } from './schema/service.js';
import { unsupportedEndpoints } from './unsupported.js';

/** What the vector app is built from. */
export interface VectorAppDeps {
  log: Logger;
  guard: VectorGuard;
  collections: CollectionService;
  /** Each region's engine, and how searches reach it. */
  engines: Engines;
  schemas: SchemaService;
  storage: StorageMeter;
  regions: readonly string[];
  /** Each region's public URL (the registry's publicUrl), for `GET /api/v1/regions`. */
  regionUrls?: Readonly<Record<string, string | null>>;
  /** Upsert limits; tests shorten the idle timeout. */
  upsert?: Partial<UpsertLimits>;
}

/** Builds the vector-plane Koa app. */
export function createVectorApp(deps: VectorAppDeps): Koa<VectorState> {
  const { app } = createVectorAppWithRouter(deps);
  return app;
}

/**
 * The app, its router and the route declarations it was mounted from (the
 * fast path serves some of the same declarations; tests compare the router
 * with the OpenAPI document).
 */
export function createVectorAppWithRouter(deps: VectorAppDeps): {
  app: Koa<VectorState>;
  router: Router<VectorState>;
  routes: readonly VectorRoute[];
} {
  const app = new Koa<VectorState>();
  app.proxy = true;
  // Koa's own error listener prints stack traces; errors are logged as JSON by vectorErrors.
  app.silent = true;
  app.use(requestContext(deps.log));
  app.use(vectorErrors());
  app.use(unsupportedEndpoints());
  const router = new Router<VectorState>();
  const routes = vectorRoutes(deps);
  mountVectorRoutes(router, routes, deps.guard);
  app.use(router.routes());
  app.use(allowedMethods());
  return { app, router, routes };
}

/**
 * Answers a path that exists but has no route for the method: 405
 * METHOD_NOT_ALLOWED in the envelope with an `Allow` header, for any method
 * (TRACE and the others the router does not implement were a 501 error
 * object, which the envelope turned into 500); OPTIONS answers 204 with
 * `Allow`. Runs only when the router matched no route (it calls next then).
 */
function allowedMethods(): Koa.Middleware {
  return (ctx) => {
    const matched = (ctx as { matched?: { methods: string[]; name?: string | null }[] }).matched;
    const allowed = [
      ...new Set(
        (matched ?? [])
          .filter((layer) => layer.name !== NATIVE_CREATE)
          .flatMap((layer) => layer.methods),
      ),
    ];
    if (allowed.length === 0) return; // No such path: the envelope's 404.
    const allow = allowed.join(', ');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', allow);
      return;
    }
    throw new VectorMethodNotAllowed(`${ctx.method} is not supported on this path; use ${allow}.`, {
      headers: { Allow: allow },
    });
  };
}

/**
 * Unauthenticated monitoring probes (no compatibility promise):
 * `GET /api/v1/health` and `/liveness` answer while the process serves;
 * `/readiness` also checks each dependency and answers 503 naming the ones down.
 */
import Router from '@koa/router';
import type { RequestState } from '../../../middleware/request-context.js';

/** A dependency check used by `/readiness`; resolves when the dependency is usable. */
export interface DependencyProbe {
  name: string;
  check(): Promise<void>;
}

/** Routes of the health probes. */
export function healthRoutes(probes: readonly DependencyProbe[]): Router<RequestState> {
  const router = new Router<RequestState>();
  router.get('/api/v1/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/liveness', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readiness', async (ctx) => {
    const results = await Promise.all(
      probes.map(async (probe) => {
        try {
          await withTimeout(probe.check(), 2000);
          return [probe.name, 'ok'] as const;
        } catch (err) {
          ctx.state.log.warn('readiness check failed', {
            dependency: probe.name,
            err: String(err),
          });
          return [probe.name, 'unavailable'] as const;
        }
      }),
    );
    const ready = results.every(([, state]) => state === 'ok');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ok' : 'unavailable', dependencies: Object.fromEntries(results) };
  });
  return router;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The control-plane front door (`/api/v1`, error envelope `{detail:{code,message}}`) as a Koa app. */
import Koa from 'koa';
import type { Logger } from '../../../common/logger.js';
import { requestContext, type RequestState } from '../middleware/request-context.js';
import { controlPlaneErrors } from './error-envelope.js';
import { healthRoutes, type DependencyProbe } from './routes/health/index.js';

/** What the control-plane app is built from. */
export interface ControlPlaneDeps {
  log: Logger;
  probes: readonly DependencyProbe[];
}

/** Builds the control-plane Koa app. */
export function createControlPlaneApp(deps: ControlPlaneDeps): Koa<RequestState> {
  const app = new Koa<RequestState>();
  app.proxy = true;
  // Koa's own error listener prints stack traces; errors are logged as JSON by controlPlaneErrors.
  app.silent = true;
  app.use(requestContext(deps.log));
  app.use(controlPlaneErrors());
  const health = healthRoutes(deps.probes);
  app.use(health.routes());
  app.use(health.allowedMethods());
  return app;
}

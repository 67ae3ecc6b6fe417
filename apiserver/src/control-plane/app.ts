/** The control-plane front door (`/api/v1`, error envelope `{detail:{code,message}}`) as a Koa app. */
import Koa from 'koa';
import type { Tier } from '../../../crds/src/index.js';
import type { Logger } from '../../../common/logger.js';
import type { AccountService } from '../accounts/account-service.js';
import type { Plan } from '../accounts/plans.js';
import type { AgentService } from '../agents/agent-service.js';
import type { LogStore } from '../logs/log-store.js';
import { requestContext } from '../middleware/request-context.js';
import { secretBodies } from '../middleware/secret-bodies.js';
import type { SecretService } from '../secrets/secret-service.js';
import type { WorkspaceSecretService } from '../secrets/workspace-secret-service.js';
import type { MongoWindowStore } from '../rate-limit/mongo-window-store.js';
import { controlPlaneErrors } from './error-envelope.js';
import { controlPlaneGuards } from './guards.js';
import { controlPlaneOpenApi } from './openapi.js';
import { agentRoutes } from './routes/agents/index.js';
import { deploymentRoutes } from './routes/deployments/index.js';
import { internalRoutes, type InternalDeps } from './routes/internal/index.js';
import { logRoutes } from './routes/logs/index.js';
import { runRoutes } from './routes/runs/index.js';
import { workspaceRoutes } from './routes/workspaces/index.js';
import { regionRoutes } from './routes/regions/index.js';
import { collectionRoutes } from './routes/collections/index.js';
import { operationRoutes } from './routes/operations/index.js';
import { secretRoutes } from './routes/secrets/index.js';
import { workspaceSecretRoutes } from './routes/secrets/workspace.js';
import { accountRoutes } from './routes/account/index.js';
import { codehostRoutes } from './routes/codehost/index.js';
import { webhookRoutes } from './routes/webhooks/index.js';
import type { CodehostDeps } from '../codehost/assemble.js';
import type { HomeRegionService } from '../accounts/home-region.js';
import type { UsageDeps } from '../usage/assemble.js';
import { requestMeter } from '../usage/request-meter.js';
import { usageRoutes } from './routes/usage/index.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import type { RegionChangeService } from '../workspaces/region-change.js';
import type { CollectionChangeService } from '../operations/collection-change.js';
import type { OperationStore } from '../operations/operation-store.js';
import type { OperationRunner } from '../operations/operation-runner.js';
import type { RunService } from '../runs/run-service.js';
import type { DeployService } from '../deploy/deploy-service.js';
import type { DeploymentService } from '../deploy/deployment-service.js';
import type { RollbackCommand } from '../deploy/rollback.js';
import type { DeploymentKeyReaper } from '../deploy/deployment-keys.js';
import {
  healthRoutes,
  type ComponentsReporter,
  type DependencyProbe,
} from './routes/health/index.js';
import {
  methodNotAllowed,
  mountRoutes,
  route,
  type AnyRoute,
  type ControlPlaneState,
} from './routing.js';

/** What the control-plane app is built from. */
export interface ControlPlaneDeps {
  log: Logger;
  probes: readonly DependencyProbe[];
  /** The single-machine platform's report on its components, shown by `/api/v1/health`. */
  components?: ComponentsReporter;
  accounts: AccountService;
  plans: Record<Tier, Plan>;
  windows: MongoWindowStore;
  agents: AgentService;
  deploy: DeployService;
  deployments: DeploymentService;
  /** Rolls an agent back to one of its versions. */
  rollback: RollbackCommand;
  internal: InternalDeps;
  logs: LogStore;
  runs: RunService;
  workspaces: WorkspaceService;
  regionChanges: RegionChangeService;
  /** Moves of vector collections to other workspaces or regions. */
  collectionChanges: CollectionChangeService;
  operations: OperationStore;
  /** Carries out region changes; started by the process, not the app. */
  regionRunner: OperationRunner;
  /** Agent secrets. */
  secrets: SecretService;
  /** Workspace secrets. */
  workspaceSecrets: WorkspaceSecretService;
  /** Code hosts, repository links and their webhooks. */
  codehost: CodehostDeps;
  /** Changes of the account's home region. */
  homeRegions: HomeRegionService;
  /** Usage metering: the writer meters record through, and what the usage routes read. */
  usage: UsageDeps;
  /** Revokes deployment keys nothing runs with any more; started by the process, not the app. */
  keys: DeploymentKeyReaper;
  /** Clock of the rate limiter (tests move it). */
  now?: () => number;
}

/** Every route of the control plane, including the document route. */
export function controlPlaneRoutes(
  deps: Pick<
    ControlPlaneDeps,
    | 'probes'
    | 'components'
    | 'agents'
    | 'deploy'
    | 'deployments'
    | 'rollback'
    | 'internal'
    | 'logs'
    | 'runs'
    | 'workspaces'
    | 'regionChanges'
    | 'collectionChanges'
    | 'operations'
    | 'secrets'
    | 'workspaceSecrets'
    | 'homeRegions'
    | 'usage'
  > &
    Partial<Pick<ControlPlaneDeps, 'codehost' | 'now'>>,
): AnyRoute[] {
  const routes: AnyRoute[] = [
    ...healthRoutes(deps.probes, deps.components),
    ...agentRoutes(deps.agents),
    ...deploymentRoutes(deps.deploy, deps.deployments, deps.rollback),
    ...runRoutes(deps.agents, deps.runs),
    ...workspaceRoutes(deps.workspaces),
    ...regionRoutes(deps.regionChanges),
    ...collectionRoutes(deps.collectionChanges),
    ...operationRoutes(deps.operations),
    ...secretRoutes(deps.secrets),
    ...workspaceSecretRoutes(deps.workspaceSecrets),
    ...accountRoutes(deps.homeRegions),
    ...codehostRoutes(deps.codehost),
    ...usageRoutes({
      service: deps.usage.service,
      store: deps.usage.store,
      internalSecret: deps.internal.secret,
    }),
    ...webhookRoutes(deps.codehost, deps.now),
    ...internalRoutes(deps.internal),
    ...logRoutes({
      agents: deps.agents,
      logs: deps.logs,
      internalSecret: deps.internal.secret,
    }),
  ];
  let document: unknown;
  routes.push(
    route({
      method: 'get',
      path: '/openapi.json',
      operationId: 'openapi',
      summary: 'This OpenAPI document',
      tag: 'Probes',
      authenticated: false,
      responses: { 200: { description: 'OpenAPI 3.1 document.' } },
      errors: [],
      handler: async (ctx) => {
        document ??= controlPlaneOpenApi(routes);
        ctx.body = document;
      },
    }),
  );
  return routes;
}

/** Builds the control-plane Koa app. */
export function createControlPlaneApp(deps: ControlPlaneDeps): Koa<ControlPlaneState> {
  const app = new Koa<ControlPlaneState>();
  app.proxy = true;
  // Koa's own error listener prints stack traces; errors are logged as JSON by controlPlaneErrors.
  app.silent = true;
  app.use(requestContext(deps.log));
  app.use(controlPlaneErrors());
  app.use(secretBodies());
  app.use(requestMeter(deps.usage.writer, 'control_request'));
  const guards = controlPlaneGuards(
    { accounts: deps.accounts, plans: deps.plans },
    deps.windows,
    deps.now,
  );
  const router = mountRoutes(controlPlaneRoutes(deps), guards);
  app.use(methodNotAllowed(router));
  app.use(router.routes());
  return app;
}

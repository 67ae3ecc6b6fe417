/** The operator's controllers, built from what they share. */
import type { CustomResourceClient } from '../../../common/kube/custom-resources.js';
import type { Logger } from '../../../common/logger.js';
import type { OperatorConfig } from '../config.js';
import type { Controller, Enqueue } from '../control-loop/controller.js';
import type { WorkloadDriver } from '../drivers/driver.js';
import { AgentController } from './agent.js';
import { AgentDeploymentController } from './agent-deployment.js';
import { RunController } from './run.js';
import type { ClusterView } from './views.js';
import { WorkspaceController } from './workspace.js';
import type { UsageReports } from '../usage-reporter.js';
import type { ResourceAccess } from '../control-loop/cached-resources.js';

/** What the controllers are built from. */
export interface ControllerDeps {
  /** The API: live reads and writes (the deployments' state machine reads its objects here). */
  resources: CustomResourceClient;
  /** Reads from the informer caches, and status writes they see at once. */
  cached: ResourceAccess;
  driver: WorkloadDriver;
  view: ClusterView;
  cfg: OperatorConfig;
  enqueue: Enqueue;
  log: Logger;
  now?: () => Date;
  /** Where machines, runs and builds are reported as usage. */
  usage?: UsageReports;
}

/** Every controller of the operator. */
export function operatorControllers(deps: ControllerDeps): Controller[] {
  const { resources, cached, driver, view, cfg, enqueue, log } = deps;
  const runs = new RunController({ resources, cached, driver, view, usage: deps.usage });
  return [
    new AgentController({ resources: cached, driver, view, cfg, enqueue, log, now: deps.now }),
    new AgentDeploymentController({
      resources,
      cached,
      driver,
      view,
      cfg,
      runs,
      enqueue,
      log,
      usage: deps.usage,
    }),
    new WorkspaceController({ resources: cached, view }),
  ];
}

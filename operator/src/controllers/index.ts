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

/** What the controllers are built from. */
export interface ControllerDeps {
  resources: CustomResourceClient;
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
  const { resources, driver, view, cfg, enqueue, log } = deps;
  const runs = new RunController({ resources, driver, view, usage: deps.usage });
  return [
    new AgentController({ resources, driver, view, cfg, enqueue, log, now: deps.now }),
    new AgentDeploymentController({
      resources,
      driver,
      view,
      cfg,
      runs,
      enqueue,
      log,
      usage: deps.usage,
    }),
    new WorkspaceController({ resources, view }),
  ];
}

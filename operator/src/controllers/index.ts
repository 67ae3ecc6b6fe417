/**
 * The operator's controllers, built from what they share, and the wiring around them
 * that names kinds: where the driver's notifications go and which caches tell the
 * driver what still exists. The manager runs what this returns and names no kind.
 */
import type { CustomResourceClient } from '../../../common/kube/custom-resources.js';
import type { ObjectWithMeta } from '../../../common/kube/owner.js';
import type { Logger } from '../../../common/logger.js';
import type { OperatorConfig } from '../config.js';
import type { Controller, Enqueue, ListCached } from '../control-loop/controller.js';
import type { DriverNotifier, LiveObjects, WorkloadDriver } from '../drivers/driver.js';
import { AgentController } from './agent.js';
import { AgentDeploymentController } from './agent-deployment.js';
import { RunController } from './run.js';
import type { ClusterView } from './views.js';
import { WorkspaceController } from './workspace.js';
import type { UsageReports } from '../usage-reporter.js';
import type { ResourceAccess } from '../control-loop/cached-resources.js';
import type { EventSink } from '../events/event-recorder.js';

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
  /** Where the controllers record the transitions of their objects as Kubernetes Events. */
  events: EventSink;
  now?: () => Date;
  /** Where machines, runs and builds are reported as usage. */
  usage?: UsageReports;
}

/** The controllers, and what connects the driver to them. */
export interface OperatorControllers {
  controllers: Controller[];
  /** Enqueues the object a driver's notification names for the controller of its kind. */
  driverNotifier: DriverNotifier;
  /** The ids of every Agent and AgentDeployment in the caches (for the driver's orphan collection). */
  liveObjects(list: ListCached): LiveObjects;
}

/** Every controller of the operator, and its wiring to the driver. */
export function operatorControllers(deps: ControllerDeps): OperatorControllers {
  const { resources, cached, driver, view, cfg, enqueue, log, events, now } = deps;
  const runs = new RunController({
    resources,
    cached,
    driver,
    view,
    usage: deps.usage,
    events,
    now,
  });
  const agents = new AgentController({
    resources: cached,
    driver,
    view,
    cfg,
    enqueue,
    log,
    events,
    now,
  });
  const deployments = new AgentDeploymentController({
    resources,
    cached,
    driver,
    view,
    cfg,
    runs,
    enqueue,
    log,
    usage: deps.usage,
    events,
    now,
  });
  const names = (objects: readonly ObjectWithMeta[]) =>
    new Set(objects.map((o) => o.metadata?.name ?? ''));
  return {
    controllers: [
      agents,
      deployments,
      new WorkspaceController({ resources: cached, view, events, now }),
    ],
    driverNotifier: {
      agent: (namespace, name) => enqueue(agents.kind, { namespace, name }),
      deployment: (namespace, name) => enqueue(deployments.kind, { namespace, name }),
    },
    liveObjects: (list) => ({
      agents: names(list('agents')),
      deployments: names(list('agentdeployments')),
    }),
  };
}

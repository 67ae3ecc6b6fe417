/**
 * Runs the reconcilers: informers on Agents, AgentDeployments, Workspaces and
 * the workloads the operator owns feed one work queue keyed by
 * `Kind:namespace/name`, which serialises work per object. Events on a child
 * enqueue its controlling owner.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import {
  API_GROUP,
  API_VERSION,
  MANAGED_BY,
  LABELS,
  PLURALS,
  type Agent,
  type AgentDeployment,
  type Workspace,
} from '../../crds/src/index.js';
import type { Logger } from '../../common/logger.js';
import type { OperatorConfig } from './config.js';
import { AgentController } from './controllers/agent.js';
import { AgentDeploymentController } from './controllers/agent-deployment.js';
import { RunController } from './controllers/run.js';
import { stateOf, type ClusterView } from './controllers/views.js';
import { WorkspaceController } from './controllers/workspace.js';
import type { WorkloadDriver } from './drivers/driver.js';
import {
  cronJobSource,
  CustomResourceClient,
  customResourceSource,
  deploymentSource,
  jobSource,
  ownerKeyOf,
  ResilientInformer,
} from '../../common/kube/index.js';
import { WorkQueue, type ReconcileResult } from '../../common/kube/index.js';

const MANAGED = `${LABELS.managedBy}=${MANAGED_BY}`;
const custom = (plural: string) => ({ group: API_GROUP, version: API_VERSION, plural });

/** Options of {@link OperatorManager}. */
export interface ManagerOptions {
  kc: KubeConfig;
  cfg: OperatorConfig;
  driver: WorkloadDriver;
  log: Logger;
  concurrency?: number;
  now?: () => Date;
  /** Only namespaces this accepts are reconciled (tests run operators side by side). Default: all. */
  namespaces?: (namespace: string) => boolean;
}

/** The reconcilers, their informers and their queue. */
export class OperatorManager {
  readonly queue: WorkQueue;
  private readonly agents: ResilientInformer<Agent & KubernetesObject>;
  private readonly deployments: ResilientInformer<AgentDeployment & KubernetesObject>;
  private readonly workspaces: ResilientInformer<Workspace & KubernetesObject>;
  private readonly children: Array<ResilientInformer<KubernetesObject>>;
  private readonly handlers: Record<
    string,
    (namespace: string, name: string) => Promise<ReconcileResult>
  >;

  constructor(private readonly opts: ManagerOptions) {
    const { kc, log } = opts;
    this.queue = new WorkQueue({ name: 'operator', logger: log });
    this.agents = new ResilientInformer(kc, customResourceSource(kc, custom(PLURALS.Agent)), {
      name: 'agents',
      logger: log,
    });
    this.deployments = new ResilientInformer(
      kc,
      customResourceSource(kc, custom(PLURALS.AgentDeployment)),
      {
        name: 'agentdeployments',
        logger: log,
      },
    );
    this.workspaces = new ResilientInformer(
      kc,
      customResourceSource(kc, custom(PLURALS.Workspace)),
      {
        name: 'workspaces',
        logger: log,
      },
    );
    this.children = [
      new ResilientInformer(kc, deploymentSource(kc, MANAGED), {
        name: 'deployments',
        logger: log,
      }),
      new ResilientInformer(kc, jobSource(kc, MANAGED), { name: 'jobs', logger: log }),
      new ResilientInformer(kc, cronJobSource(kc, MANAGED), { name: 'cronjobs', logger: log }),
    ] as Array<ResilientInformer<KubernetesObject>>;

    const view = this.view();
    const resources = new CustomResourceClient(kc);
    const accept = opts.namespaces ?? (() => true);
    const enqueue = {
      agent: (namespace: string, agentId: string) =>
        this.queue.add(`Agent:${namespace}/${agentId}`),
      queuedDeployments: () => {
        for (const d of this.deployments.list()) {
          if (stateOf(d) === 'queued' && !d.spec.ephemeral && accept(d.metadata.namespace ?? ''))
            this.queue.add(keyOf('AgentDeployment', d));
        }
      },
    };
    const agentController = new AgentController({
      resources,
      driver: opts.driver,
      view,
      cfg: opts.cfg,
      enqueueDeployment: (namespace, name) =>
        this.queue.add(`AgentDeployment:${namespace}/${name}`),
      log,
      now: opts.now,
    });
    const deploymentController = new AgentDeploymentController({
      resources,
      driver: opts.driver,
      view,
      cfg: opts.cfg,
      enqueue,
      log,
    });
    const runController = new RunController({ resources, driver: opts.driver, view });
    const workspaceController = new WorkspaceController({ resources, view });
    this.handlers = {
      Agent: (ns, name) => agentController.reconcile(ns, name),
      AgentDeployment: async (ns, name) => {
        const cached = this.deployments.get(ns, name);
        return cached?.spec.ephemeral
          ? runController.reconcile(ns, name)
          : deploymentController.reconcile(ns, name);
      },
      Workspace: (ns, name) => workspaceController.reconcile(ns, name),
    };
    this.wire();
    opts.driver.notify?.({
      agent: (namespace, name) => this.queue.add(`Agent:${namespace}/${name}`),
      deployment: (namespace, name) => this.queue.add(`AgentDeployment:${namespace}/${name}`),
    });
  }

  private view(): ClusterView {
    const accept = this.opts.namespaces ?? (() => true);
    return {
      deployments: () => this.deployments.list().filter((d) => accept(d.metadata.namespace ?? '')),
      deploymentsOf: (namespace, agentId) =>
        this.deployments
          .list()
          .filter((d) => d.metadata.namespace === namespace && d.spec.agentId === agentId),
      agentsIn: (namespace) => this.agents.list().filter((a) => a.metadata.namespace === namespace),
      workspacesIn: (namespace) =>
        this.workspaces.list().filter((w) => w.metadata.namespace === namespace),
    };
  }

  private wire(): void {
    const accept = this.opts.namespaces ?? (() => true);
    const queue = this.queue;
    const q = {
      add: (key: string) => {
        const namespace = key.slice(key.indexOf(':') + 1).split('/')[0] ?? '';
        if (accept(namespace)) queue.add(key);
      },
    };
    const onAll = <T extends KubernetesObject>(
      informer: ResilientInformer<T>,
      cb: (obj: T) => void,
    ) => {
      for (const event of ['add', 'update', 'delete'] as const) informer.on(event, cb);
    };
    onAll(this.agents, (a) => {
      q.add(keyOf('Agent', a));
      for (const w of this.workspaces.list())
        if (w.metadata.namespace === a.metadata.namespace) q.add(keyOf('Workspace', w));
    });
    onAll(this.deployments, (d) => {
      q.add(keyOf('AgentDeployment', d));
      q.add(`Agent:${d.metadata.namespace}/${d.spec.agentId}`);
    });
    onAll(this.workspaces, (w) => q.add(keyOf('Workspace', w)));
    for (const child of this.children) {
      onAll(child, (obj) => {
        const agent = ownerKeyOf(obj, 'Agent', API_GROUP);
        if (agent) q.add(`Agent:${agent}`);
        const deployment = ownerKeyOf(obj, 'AgentDeployment', API_GROUP);
        if (deployment) q.add(`AgentDeployment:${deployment}`);
      });
    }
  }

  /** Starts the informers and the workers; resolves once the caches are filled. */
  async start(): Promise<void> {
    const informers = [this.agents, this.deployments, this.workspaces, ...this.children];
    for (const informer of informers) informer.start();
    await Promise.all(informers.map((i) => i.synced));
    // Before any reconcile: what was kept for objects deleted while no operator ran.
    await this.opts.driver
      .collectOrphans({
        agents: new Set(this.agents.list().map((a) => a.metadata.name ?? '')),
        deployments: new Set(this.deployments.list().map((d) => d.metadata.name ?? '')),
      })
      .catch((err: unknown) =>
        this.opts.log.warn('could not remove the state of deleted objects', { err }),
      );
    this.queue.start((key) => this.handle(key), { concurrency: this.opts.concurrency ?? 4 });
  }

  private async handle(key: string): Promise<ReconcileResult> {
    const [kind, rest = ''] = key.split(':', 2) as [string, string?];
    const [namespace = '', name = ''] = rest.split('/', 2);
    const handler = this.handlers[kind];
    if (!handler) throw new Error(`no controller for ${key}`);
    return handler(namespace, name);
  }

  /** Stops the workers (waiting for those in flight) and the informers. */
  async stop(): Promise<void> {
    await this.queue.stop();
    await Promise.all(
      [this.agents, this.deployments, this.workspaces, ...this.children].map((i) => i.stop()),
    );
  }
}

function keyOf(kind: string, obj: KubernetesObject): string {
  return `${kind}:${obj.metadata?.namespace}/${obj.metadata?.name}`;
}

/**
 * The operator's informer caches, one per watched collection: the platform's custom
 * resources, and the workloads the operator manages (by the managed-by label). The
 * controllers read siblings through {@link ClusterCache.view}; the manager wires their
 * watches to {@link ClusterCache.informer}. Each cache keeps only what is read of its
 * objects (cache-transforms.ts), so its memory grows with the objects' useful part.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import {
  cronJobSource,
  customResourceSource,
  deploymentSource,
  jobSource,
  ResilientInformer,
  type InformerSource,
} from '../../../common/kube/informer.js';
import type { Logger } from '../../../common/logger.js';
import { API_GROUP, API_VERSION, LABELS, MANAGED_BY, PLURALS } from '../../../crds/src/index.js';
import type { ClusterView } from '../controllers/views.js';
import type { SourceName, SourceObjects } from './controller.js';
import { stripForCache, workloadSkeleton } from '../../../common/kube/cache-transforms.js';
import type { ResourceCaches } from './cached-resources.js';

const MANAGED = `${LABELS.managedBy}=${MANAGED_BY}`;

type Informers = { [S in SourceName]: ResilientInformer<SourceObjects[S] & KubernetesObject> };

/** Informers on everything the controllers read or watch. */
export class ClusterCache {
  private readonly informers: Informers;

  constructor(
    kc: KubeConfig,
    log: Logger,
    /** Only objects of namespaces this accepts are visible to the controllers. */
    private readonly accept: (namespace: string) => boolean = () => true,
  ) {
    const custom = (plural: string) => ({ group: API_GROUP, version: API_VERSION, plural });
    const resource = <T extends KubernetesObject>(name: string, source: InformerSource<T>) =>
      new ResilientInformer<T>(kc, source, { name, logger: log, transform: stripForCache });
    const workload = <T extends KubernetesObject>(name: string, source: InformerSource<T>) =>
      new ResilientInformer<T>(kc, source, { name, logger: log, transform: workloadSkeleton });
    this.informers = {
      agents: resource('agents', customResourceSource(kc, custom(PLURALS.Agent))),
      agentdeployments: resource(
        'agentdeployments',
        customResourceSource(kc, custom(PLURALS.AgentDeployment)),
      ),
      workspaces: resource('workspaces', customResourceSource(kc, custom(PLURALS.Workspace))),
      deployments: workload('deployments', deploymentSource(kc, MANAGED)),
      jobs: workload('jobs', jobSource(kc, MANAGED)),
      cronjobs: workload('cronjobs', cronJobSource(kc, MANAGED)),
    } as Informers;
  }

  /** The informer of one collection. */
  informer<S extends SourceName>(source: S): Informers[S] {
    return this.informers[source];
  }

  /** What the cache of `source` holds, in every namespace. */
  list<S extends SourceName>(source: S): readonly SourceObjects[S][] {
    return this.informers[source].list();
  }

  /** The caches of the custom resources, by kind (what the reconcilers read their objects from). */
  resources(): ResourceCaches {
    const { agents, agentdeployments, workspaces } = this.informers;
    // The informers' element types carry client-node's KubernetesObject too; the same objects.
    return {
      Agent: agents,
      AgentDeployment: agentdeployments,
      Workspace: workspaces,
    } as unknown as ResourceCaches;
  }

  private all(): ResilientInformer<KubernetesObject>[] {
    return Object.values(this.informers) as ResilientInformer<KubernetesObject>[];
  }

  /** Starts every informer; resolves once each has listed its collection. */
  async start(): Promise<void> {
    for (const informer of this.all()) informer.start();
    await Promise.all(this.all().map((informer) => informer.synced));
  }

  /** Stops every informer. */
  async stop(): Promise<void> {
    await Promise.all(this.all().map((informer) => informer.stop()));
  }

  /** The reconcilers' read-only view of sibling objects. */
  view(): ClusterView {
    const { agents, agentdeployments, workspaces } = this.informers;
    const accept = this.accept;
    return {
      deployments: () => agentdeployments.list().filter((d) => accept(d.metadata.namespace ?? '')),
      deploymentsOf: (namespace, agentId) =>
        agentdeployments.listIn(namespace).filter((d) => d.spec.agentId === agentId),
      agentsIn: (namespace) => [...agents.listIn(namespace)],
      workspacesIn: (namespace) => [...workspaces.listIn(namespace)],
    };
  }
}

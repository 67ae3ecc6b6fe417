/**
 * What a controller declares, after controller-runtime: the object kind it reconciles
 * (its name, the prefix of its queue keys), the watches that enqueue it (`for` its own
 * kind, `owns` the children it makes, and any other mapping), and its reconcile. The
 * manager wires the declared watches to the cluster cache and knows no kinds itself.
 */
import type { KubernetesObject, V1CronJob, V1Deployment, V1Job } from '@kubernetes/client-node';
import { ownerKeyOf, parseObjectKey, type ObjectWithMeta } from '../../../common/kube/owner.js';
import type { ReconcileResult } from '../../../common/kube/work-queue.js';
import {
  API_GROUP,
  isResourceKind,
  type Agent,
  type AgentDeployment,
  type ResourceKind,
  type Workspace,
} from '../../../crds/src/index.js';

/** The objects of each cache a controller may watch. */
export interface SourceObjects {
  agents: Agent;
  agentdeployments: AgentDeployment;
  workspaces: Workspace;
  deployments: V1Deployment;
  jobs: V1Job;
  cronjobs: V1CronJob;
}

/** The name of a cache. */
export type SourceName = keyof SourceObjects;

/** Lists what the cache of `source` holds, in every namespace. */
export type ListCached = <S extends SourceName>(source: S) => readonly SourceObjects[S][];

/** The object a queue key names. */
export interface ObjectRef {
  namespace: string;
  name: string;
}

/** One watch: any event on an object of `source` enqueues the refs `map` returns. */
export type Watch = {
  [S in SourceName]: { source: S; map: (obj: SourceObjects[S]) => ObjectRef[] };
}[SourceName];

/** A controller: the kind it reconciles, what enqueues it, and its reconcile. */
export interface Controller {
  /** The kind reconciled, and the prefix of its queue keys (`Agent:namespace/name`). */
  readonly kind: ResourceKind;
  readonly watches: readonly Watch[];
  reconcile(ref: ObjectRef): Promise<ReconcileResult>;
}

/** Enqueues the object `ref` for the controller of `kind`. */
export type Enqueue = (kind: ResourceKind, ref: ObjectRef) => void;

/** The ref of an object itself. */
export function refOf(obj: ObjectWithMeta): ObjectRef {
  return { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' };
}

/** Watches `source` for the object itself (controller-runtime's `For`). */
export function watchFor<S extends SourceName>(source: S): Watch {
  return { source, map: (obj: KubernetesObject) => [refOf(obj)] } as Watch;
}

/**
 * Watches the children in `sources` whose controlling owner is of `kind` in the
 * platform's API group, enqueueing the owner (controller-runtime's `Owns`).
 */
export function watchOwned(kind: ResourceKind, sources: readonly SourceName[]): Watch[] {
  return sources.map(
    (source) =>
      ({
        source,
        map: (obj: KubernetesObject) => {
          const key = ownerKeyOf(obj, kind, API_GROUP);
          return key ? [parseObjectKey(key)] : [];
        },
      }) as Watch,
  );
}

/** The children the operator makes, in the caches it watches. */
export const CHILD_SOURCES: readonly SourceName[] = ['deployments', 'jobs', 'cronjobs'];

/** The queue key of `ref` for the controller of `kind`. */
export function queueKey(kind: ResourceKind, ref: ObjectRef): string {
  return `${kind}:${ref.namespace}/${ref.name}`;
}

/** Splits a key made by {@link queueKey}; throws for a key of no kind. */
export function parseQueueKey(key: string): { kind: ResourceKind; ref: ObjectRef } {
  const colon = key.indexOf(':');
  const kind = key.slice(0, colon);
  if (!isResourceKind(kind)) throw new Error(`not a queue key of a kind: ${key}`);
  const rest = key.slice(colon + 1);
  const slash = rest.indexOf('/');
  return { kind, ref: { namespace: rest.slice(0, slash), name: rest.slice(slash + 1) } };
}

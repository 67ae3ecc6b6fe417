/**
 * What the informer caches of the operator and the API server keep of each object
 * (client-go's informer transforms): the caches hold every Agent, AgentDeployment and
 * Workspace (and the operator's every workload it made), so their memory is the sum of
 * what is kept per object, and the API server copies an object out of its cache on
 * each read.
 * managedFields (often the largest part of an object) and `kubectl apply`'s copy of
 * the whole object are read by no reconciler; of a workload (Deployment, Job,
 * CronJob) the watches read only who owns it, so its spec and status are dropped too.
 */
import type { ObjectWithMeta } from './owner.js';

/** The annotation in which `kubectl apply` keeps a copy of the object it applied. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The metadata a cached object may carry beyond what {@link ObjectWithMeta} names. */
interface CachedMeta {
  managedFields?: unknown;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

/**
 * A custom resource as the cache keeps it: without managedFields or the last-applied
 * annotation; everything the reconcilers read (spec, status, the rest of the
 * metadata) is kept as is. Mutates and returns `obj`.
 */
export function stripForCache<O extends ObjectWithMeta>(obj: O): O {
  const meta = obj.metadata as CachedMeta | undefined;
  if (!meta) return obj;
  delete meta.managedFields;
  if (meta.annotations && LAST_APPLIED_ANNOTATION in meta.annotations) {
    const { [LAST_APPLIED_ANNOTATION]: _applied, ...rest } = meta.annotations;
    meta.annotations = rest;
  }
  return obj;
}

/** The metadata fields a workload keeps in the cache. */
const WORKLOAD_META = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'labels',
  'ownerReferences',
  'deletionTimestamp',
] as const;

/**
 * A workload as the cache keeps it: its kind and the identifying part of its metadata
 * (owner references above all, which map its events to the owner's key). The drivers
 * read workloads from the API, never from this cache. Returns a new object.
 */
export function workloadSkeleton<O extends ObjectWithMeta>(obj: O): O {
  const source = obj as ObjectWithMeta & { apiVersion?: string; kind?: string };
  const meta = (source.metadata ?? {}) as CachedMeta;
  const kept: Record<string, unknown> = {};
  for (const field of WORKLOAD_META) if (meta[field] !== undefined) kept[field] = meta[field];
  return { apiVersion: source.apiVersion, kind: source.kind, metadata: kept } as unknown as O;
}

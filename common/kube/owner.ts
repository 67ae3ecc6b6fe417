/**
 * Reading owner references, and the queue keys derived from objects: a watch on children
 * (Deployment, Service, Job, CronJob) wakes the reconcile of the resource that made them.
 * Owner references are written by `controllerRef` (crds/src/owner-reference.ts).
 */

/**
 * The little of an object this module reads. Structural, so that both client-node's
 * types and the custom resources' own types (`crds/`, whose timestamps are
 * `string | Date`) fit without casts.
 */
export interface ObjectWithMeta {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    ownerReferences?: ReadonlyArray<{
      apiVersion: string;
      kind: string;
      name: string;
      controller?: boolean;
    }>;
  };
}

/** The group of an `apiVersion`: `apps` for `apps/v1`, `` for core `v1`. */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/**
 * The queue key (`namespace/name`) of the controller of `obj` when it is of `kind` (and,
 * when given, of `apiGroup`, so another operator's kind of the same name is not taken for
 * ours), else null. Owners of namespaced objects live in the same namespace, which is why
 * the child's namespace is the owner's.
 */
export function ownerKeyOf(obj: ObjectWithMeta, kind: string, apiGroup?: string): string | null {
  const ref = obj.metadata?.ownerReferences?.find((candidate) => candidate.controller === true);
  if (!ref || ref.kind !== kind) return null;
  if (apiGroup !== undefined && groupOf(ref.apiVersion) !== apiGroup) return null;
  return joinKey(obj.metadata?.namespace ?? '', ref.name);
}

function joinKey(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** The queue key of an object: `namespace/name`, or `name` for a cluster-scoped one. */
export function objectKey(obj: ObjectWithMeta): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error('object has no metadata.name');
  return joinKey(obj.metadata?.namespace ?? '', name);
}

/** Splits a key made by {@link objectKey} or {@link ownerKeyOf}. */
export function parseObjectKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash === -1
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

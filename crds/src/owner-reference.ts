/**
 * How a child (a Deployment, Job, CronJob, Secret, or an AgentDeployment of an Agent)
 * points at the resource that made it, so that the garbage collector deletes it with its
 * owner. The one writer of owner references in the platform.
 */
import type { V1OwnerReference } from '@kubernetes/client-node';

/** An object that can own others: one read from the API server, so it has a name and uid. */
export interface OwnerLike {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; uid?: string };
}

/**
 * An owner reference marking `owner` as the controller of a child. `blockOwnerDeletion`
 * makes a foreground deletion of the owner wait for the child to go first. Throws when
 * the owner has no uid, i.e. was not read back from the server.
 */
export function controllerRef(owner: OwnerLike): V1OwnerReference {
  const { name, uid } = owner.metadata ?? {};
  if (!name || !uid) throw new Error(`${owner.kind} has no metadata.name or metadata.uid`);
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

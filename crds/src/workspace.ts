/**
 * The `Workspace` custom resource: a named group of agents, secrets and
 * collections in an account's namespace, named by its UUID. Every field of the
 * contract's Workspace record maps to one here (`id` is `metadata.name`,
 * `created_at` is `metadata.creationTimestamp`).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Conditions, dateTime, nullable, stringSet, type ObjectMeta } from './schema.js';

/** What the API server asks for. */
export const WorkspaceSpec = Type.Object({
  name: Type.String({ minLength: 3, maxLength: 63 }),
  userId: Type.String({ format: 'uuid' }),
  description: Type.Optional(nullable(Type.String())),
  regions: stringSet(),
  updatedAt: dateTime(),
});
/** Spec of a {@link Workspace}. */
export type WorkspaceSpec = Static<typeof WorkspaceSpec>;

/** What the operator observed. */
export const WorkspaceStatus = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
  conditions: Type.Optional(Conditions),
  agentCount: Type.Optional(Type.Integer({ minimum: 0 })),
});
/** Status of a {@link Workspace}. */
export type WorkspaceStatus = Static<typeof WorkspaceStatus>;

/** A `Workspace` object as read from or written to the Kubernetes API. */
export interface Workspace {
  apiVersion: 'svc.dev/v1alpha1';
  kind: 'Workspace';
  metadata: ObjectMeta;
  spec: WorkspaceSpec;
  status?: WorkspaceStatus;
}

/**
 * The Kubernetes Secret holding a workspace's secrets (one key each), in the
 * workspace's namespace. Deleting the workspace deletes it.
 */
export function workspaceSecretsName(workspaceId: string): string {
  return `svc-ws-secrets-${workspaceId}`;
}

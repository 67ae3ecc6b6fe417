/**
 * The `Workspace` custom resource: a named group of agents, secrets and
 * collections in an account's namespace, named by its UUID. Every field of the
 * contract's Workspace record maps to one here (`id` is `metadata.name`,
 * `created_at` is `metadata.creationTimestamp`).
 */
import { createHash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { conditionList, dateTime, nullable, stringSet, type ObjectMeta } from './schema.js';

/** What the API server asks for. */
export const WorkspaceSpec = Type.Object(
  {
    name: Type.String({
      minLength: 3,
      maxLength: 63,
      description:
        "The workspace's name, unique in its namespace; agents join it by this name (an Agent's spec.workspaceName). Fixed at creation: metadata.name is a UUID derived from the namespace and this name.",
    }),
    userId: Type.String({
      format: 'uuid',
      description: 'UUID of the account that owns the workspace. Set by the API server.',
    }),
    description: Type.Optional(
      nullable(
        Type.String({
          description:
            'Free text the owner gave the workspace (up to 2000 characters); null for none.',
        }),
      ),
    ),
    regions: stringSet(
      "Regions the workspace is placed in; its agents run and its collections live there. The account's home region unless the request names others; changed only through a region change (PATCH /api/v1/workspaces/{workspace}/regions).",
    ),
    updatedAt: dateTime(
      'When the API server last changed this spec (RFC 3339); the API reports it as updated_at.',
    ),
  },
  {
    description:
      'What the owner asked for: written by the API server from the platform API; do not edit by hand.',
  },
);
/** Spec of a {@link Workspace}. */
export type WorkspaceSpec = Static<typeof WorkspaceSpec>;

/** What the operator observed. */
export const WorkspaceStatus = Type.Object(
  {
    observedGeneration: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'The metadata.generation the operator last wrote this status for.',
      }),
    ),
    conditions: Type.Optional(
      conditionList(
        'Standard conditions (metav1.Condition), written by the operator. Ready: True (reason Ready) once the operator has observed the workspace at its generation, its message counting the agents; becoming ready is also recorded as an Event.',
      ),
    ),
    agentCount: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "How many Agents in the workspace's namespace, not being deleted, have spec.workspaceName equal to this workspace's name. Written by the operator.",
      }),
    ),
  },
  { description: 'What the operator observed. Written by the operator only.' },
);
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

/** The RFC 9562 name space of workspace ids (a fixed random UUID). */
const WORKSPACE_ID_NAMESPACE = Buffer.from('6f1d3c2a9b7e4e0f8a51c0d2e3f4a5b6', 'hex');

/**
 * The id (the Workspace resource's name) of the workspace `name` in
 * `namespace`: a UUID version 5 of both, so the API server knows it before the
 * workspace exists (concurrent creates race on one object) and the operator
 * can find a workspace's Secret from an agent's workspace name alone.
 */
export function workspaceId(namespace: string, name: string): string {
  const hash = createHash('sha1')
    .update(WORKSPACE_ID_NAMESPACE)
    .update(`${namespace}/${name}`, 'utf8')
    .digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

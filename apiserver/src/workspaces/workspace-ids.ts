/**
 * A workspace's id is derived from its tenant namespace and name (a UUID
 * version 5, RFC 9562), so the Workspace resource's name is known before it
 * exists: two concurrent creates of one name race on one Kubernetes object,
 * and exactly one wins, with no second store of names to keep in step.
 */
import { createHash } from 'node:crypto';

/** The RFC 9562 name space of workspace ids (a fixed random UUID). */
const WORKSPACE_ID_NAMESPACE = Buffer.from('6f1d3c2a9b7e4e0f8a51c0d2e3f4a5b6', 'hex');

/** The id of the workspace `name` in `namespace`. */
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

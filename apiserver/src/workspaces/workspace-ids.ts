/**
 * A workspace's id is derived from its tenant namespace and name (a UUID
 * version 5, RFC 9562), so the Workspace resource's name is known before it
 * exists: two concurrent creates of one name race on one Kubernetes object,
 * and exactly one wins, with no second store of names to keep in step. The
 * derivation lives in crds/ because the operator needs it too (to find a
 * workspace's Secret from an agent's workspace name).
 */
export { workspaceId } from '../../../crds/src/index.js';

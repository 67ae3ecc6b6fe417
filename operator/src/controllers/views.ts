/**
 * What the reconcilers read about sibling objects, served from the informer
 * caches: the deployments of an agent, every deployment waiting for a build.
 */
import {
  ANNOTATIONS,
  type Agent,
  type AgentDeployment,
  type Workspace,
} from '../../../crds/src/index.js';

/** Read-only views over the caches. */
export interface ClusterView {
  /** Every AgentDeployment the operator sees. */
  deployments(): AgentDeployment[];
  /** The AgentDeployments of one agent. */
  deploymentsOf(namespace: string, agentId: string): AgentDeployment[];
  /** The Agents of a namespace. */
  agentsIn(namespace: string): Agent[];
  /** The Workspaces of a namespace. */
  workspacesIn(namespace: string): Workspace[];
}

/**
 * The state of a deployment: `queued` before the operator first sees it, or
 * the state of a record a region change copied here before its status is written.
 */
export function stateOf(d: AgentDeployment): string {
  return d.status?.state ?? d.metadata.annotations?.[ANNOTATIONS.importedState] ?? 'queued';
}

/** Oldest first: creation time, then name, so every replica orders a queue the same way. */
export function byAge(a: AgentDeployment, b: AgentDeployment): number {
  const t = String(a.metadata.creationTimestamp ?? '').localeCompare(
    String(b.metadata.creationTimestamp ?? ''),
  );
  return t || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
}

/** Highest version first among `deployments` that match `filter`. */
export function newest(
  deployments: AgentDeployment[],
  filter: (d: AgentDeployment) => boolean,
): AgentDeployment | undefined {
  return deployments.filter(filter).sort((a, b) => b.spec.version - a.spec.version)[0];
}

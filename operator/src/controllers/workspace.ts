/** Reconciles a Workspace: its `agentCount` is the number of agents that declare it. */
import type { Agent, Workspace, WorkspaceStatus } from '../../../crds/src/index.js';
import type { ResourceAccess } from '../control-loop/cached-resources.js';
import type { ReconcileResult } from '../../../common/kube/index.js';
import {
  refOf,
  watchFor,
  type Controller,
  type ObjectRef,
  type Watch,
} from '../control-loop/controller.js';
import type { ClusterView } from './views.js';

/** The Workspace reconciler. */
export class WorkspaceController implements Controller {
  readonly kind = 'Workspace';

  /** Its own objects, and the agents of its namespace (which it counts). */
  readonly watches: readonly Watch[] = [
    watchFor('workspaces'),
    {
      source: 'agents',
      map: (agent) => this.deps.view.workspacesIn(agent.metadata.namespace ?? '').map(refOf),
    },
  ];

  constructor(private readonly deps: { resources: ResourceAccess; view: ClusterView }) {}

  /** Reconciles the Workspace `ref`. */
  async reconcile({ namespace, name }: ObjectRef): Promise<ReconcileResult> {
    const workspace = await this.deps.resources.get('Workspace', namespace, name);
    if (!workspace || workspace.metadata.deletionTimestamp) return;
    const status = workspaceStatus(workspace, this.deps.view.agentsIn(namespace));
    if (status) await this.deps.resources.writeStatus('Workspace', workspace, status);
    return;
  }
}

/**
 * The status `workspace` should have given the agents of its namespace: how
 * many (not being deleted) declare it; null when the status already says so.
 */
export function workspaceStatus(
  workspace: Workspace,
  agents: readonly Agent[],
): WorkspaceStatus | null {
  const agentCount = agents.filter(
    (a) => !a.metadata.deletionTimestamp && a.spec.workspaceName === workspace.spec.name,
  ).length;
  if (
    workspace.status?.agentCount === agentCount &&
    workspace.status.observedGeneration === workspace.metadata.generation
  )
    return null;
  return { ...workspace.status, agentCount, observedGeneration: workspace.metadata.generation };
}

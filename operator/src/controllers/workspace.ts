/** Reconciles a Workspace: its `agentCount` is the number of agents that declare it. */
import type { CustomResourceClient } from '../../../common/kube/custom-resources.js';
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

  constructor(private readonly deps: { resources: CustomResourceClient; view: ClusterView }) {}

  /** Reconciles the Workspace `ref`. */
  async reconcile({ namespace, name }: ObjectRef): Promise<ReconcileResult> {
    const workspace = await this.deps.resources.get('Workspace', namespace, name);
    if (!workspace || workspace.metadata.deletionTimestamp) return;
    const agentCount = this.deps.view
      .agentsIn(namespace)
      .filter(
        (a) => !a.metadata.deletionTimestamp && a.spec.workspaceName === workspace.spec.name,
      ).length;
    if (
      workspace.status?.agentCount === agentCount &&
      workspace.status.observedGeneration === workspace.metadata.generation
    )
      return;
    await this.deps.resources.writeStatus('Workspace', workspace, {
      ...workspace.status,
      agentCount,
      observedGeneration: workspace.metadata.generation,
    });
    return;
  }
}

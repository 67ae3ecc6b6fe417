/** Reconciles a Workspace: its `agentCount` is the number of agents that declare it. */
import type { ResourceAccess } from '../control-loop/cached-resources.js';
import type { ReconcileResult } from '../../../common/kube/index.js';
import {
  refOf,
  watchFor,
  type Controller,
  type ObjectRef,
  type Watch,
} from '../control-loop/controller.js';
import type { EventSink } from '../events/event-recorder.js';
import type { ClusterView } from './views.js';
import { workspaceEvents, workspaceStatus } from './workspace-decisions.js';

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

  constructor(
    private readonly deps: {
      resources: ResourceAccess;
      view: ClusterView;
      /** Where the workspace's transitions are recorded as Events. */
      events: EventSink;
      now?: () => Date;
    },
  ) {}

  /** Reconciles the Workspace `ref`. */
  async reconcile({ namespace, name }: ObjectRef): Promise<ReconcileResult> {
    const workspace = await this.deps.resources.get('Workspace', namespace, name);
    if (!workspace || workspace.metadata.deletionTimestamp) return;
    const now = this.deps.now?.() ?? new Date();
    const status = workspaceStatus(workspace, this.deps.view.agentsIn(namespace), now);
    if (!status) return;
    await this.deps.resources.writeStatus('Workspace', workspace, status);
    for (const event of workspaceEvents(workspace.status, status))
      this.deps.events.record({ kind: 'Workspace', metadata: workspace.metadata }, event);
    return;
  }
}

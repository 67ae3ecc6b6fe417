/**
 * The pure part of the Workspace reconciler: its status from the agents of its
 * namespace, and the Events of that status. Unit-tested without a cluster
 * (workspace.test.ts).
 */
import type { Agent, Workspace, WorkspaceStatus } from '../../../crds/src/index.js';
import { setCondition } from '../conditions.js';
import { eventOf, transitionOf, type EventNote } from '../events/transitions.js';
import type { ConditionChange } from './agent-decisions.js';

/** How many agents `agentCount` counts, said in a sentence. */
function agentsSentence(count: number): string {
  return count === 1 ? 'The workspace has 1 agent.' : `The workspace has ${count} agents.`;
}

/**
 * `Ready`: True (reason Ready) once the operator has observed the workspace
 * at its generation: it needs nothing else to exist (its Secret is the API
 * server's, its agents their own). The message counts its agents.
 */
export function workspaceReady(workspace: Workspace, agentCount: number): ConditionChange {
  return {
    type: 'Ready',
    status: 'True',
    reason: 'Ready',
    message: agentsSentence(agentCount),
    observedGeneration: workspace.metadata.generation,
  };
}

/**
 * The status `workspace` should have given the agents of its namespace: how
 * many (not being deleted) declare it, and its `Ready` condition; null when
 * the status already says so.
 */
export function workspaceStatus(
  workspace: Workspace,
  agents: readonly Agent[],
  now: Date,
): WorkspaceStatus | null {
  const agentCount = agents.filter(
    (a) => !a.metadata.deletionTimestamp && a.spec.workspaceName === workspace.spec.name,
  ).length;
  const conditions = setCondition(
    workspace.status?.conditions,
    workspaceReady(workspace, agentCount),
    now,
  );
  const next: WorkspaceStatus = {
    ...workspace.status,
    agentCount,
    conditions,
    observedGeneration: workspace.metadata.generation,
  };
  return JSON.stringify(next) === JSON.stringify(workspace.status) ? null : next;
}

/** The Events of a workspace's status write: `Ready` when it becomes (or stops being) ready. */
export function workspaceEvents(
  previous: WorkspaceStatus | undefined,
  next: WorkspaceStatus,
): EventNote[] {
  const ready = transitionOf(previous?.conditions, next.conditions, 'Ready');
  return ready ? [eventOf(ready.to, ready.to.status !== 'True')] : [];
}

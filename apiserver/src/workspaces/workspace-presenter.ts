/** Shapes Workspace resources and the agents in them into the contract's records. */
import type { Agent, Workspace } from '../../../crds/src/index.js';
import { presentAgent } from '../agents/agent-presenter.js';
import type { WorkspaceRecordValue } from '../control-plane/routes/workspaces/schema.js';

function timestamp(value: string | Date | undefined): string {
  if (value === undefined) return new Date(0).toISOString();
  return new Date(value).toISOString();
}

/** The Workspace record; `agentCount` is counted by the caller at read time. */
export function presentWorkspace(workspace: Workspace, agentCount: number): WorkspaceRecordValue {
  return {
    id: workspace.metadata.name ?? '',
    name: workspace.spec.name,
    description: workspace.spec.description ?? null,
    regions: workspace.spec.regions,
    agent_count: agentCount,
    created_at: timestamp(workspace.metadata.creationTimestamp),
    updated_at: timestamp(workspace.spec.updatedAt),
  };
}

/** The WorkspaceAgent record: the Agent record's fields a workspace listing shows. */
export function presentWorkspaceAgent(agent: Agent) {
  const a = presentAgent(agent);
  return {
    id: a.id,
    name: a.name,
    agent_type: a.agent_type,
    status: a.status,
    deployed: a.deployed,
    url: a.url,
    created_at: a.created_at,
    updated_at: a.updated_at,
    is_degraded: a.is_degraded,
    regions_total: a.regions_total,
    regions_ready: a.regions_ready,
    degraded_reason: a.degraded_reason,
    failure_code: a.failure_code,
    failure_message: a.failure_message,
  };
}

/** Shapes `Agent` custom resources into the contract's Agent record. */
import type { Agent } from '../../../crds/src/index.js';
import type { AgentRecordValue } from '../control-plane/routes/agents/schema.js';

/** Prose for each failure_code; null for a code this release does not recognise. */
const FAILURE_MESSAGES: Record<string, string> = {
  app_lost_on_provider:
    'The compute plane has no app for this agent. Its code, secrets and address are kept; redeploy to restore it.',
};

function timestamp(value: string | Date | undefined): string {
  if (value === undefined) return new Date(0).toISOString();
  return typeof value === 'string' ? new Date(value).toISOString() : value.toISOString();
}

/** The Agent record of a resource: every field of the contract, defaults where the operator has not reported yet. */
export function presentAgent(agent: Agent): AgentRecordValue {
  const { spec } = agent;
  const status = agent.status ?? {};
  const failureCode = status.failureCode ?? null;
  return {
    id: agent.metadata.name ?? '',
    user_id: spec.userId,
    name: spec.name,
    description: spec.description ?? null,
    agent_type: spec.agentType,
    tier: spec.tier,
    runtime: spec.runtime,
    memory_mb: spec.memoryMb,
    idle_timeout_minutes: spec.idleTimeoutMinutes,
    keep_alive: spec.keepAlive,
    serves_websocket: status.servesWebsocket ?? null,
    status: status.status ?? 'pending',
    database_collection: spec.databaseCollection ?? null,
    model_name: spec.modelName ?? null,
    entrypoint: spec.entrypoint ?? null,
    spawn_enabled: spec.spawnEnabled,
    allowed_workers: spec.allowedWorkers,
    parent_agent_id: spec.parentAgentId ?? null,
    workspace_name: spec.workspaceName ?? null,
    deployed: status.deployed ?? false,
    url: status.url ?? null,
    regions: spec.regions,
    pending_regions: status.pendingRegions ?? [],
    regions_total: status.regionsTotal ?? spec.regions.length,
    regions_ready: status.regionsReady ?? 0,
    is_degraded: status.isDegraded ?? false,
    degraded_reason: status.degradedReason ?? null,
    failure_code: failureCode,
    failure_message: failureCode
      ? (status.failureMessage ?? FAILURE_MESSAGES[failureCode] ?? null)
      : null,
    cron_schedule: spec.schedule ?? null,
    cron_next_run_at: status.cronNextRunAt ?? null,
    cron_paused: spec.schedulePaused ?? false,
    cron_last_run_at: status.cronLastRunAt ?? null,
    cron_last_status: status.cronLastStatus ?? null,
    cron_last_reason: status.cronLastReason ?? null,
    created_at: timestamp(agent.metadata.creationTimestamp),
    updated_at: timestamp(spec.updatedAt),
  };
}

const presented = new WeakMap<object, string>();

/**
 * {@link presentAgent} of an object the cache holds, as JSON text, made once per object: the
 * cache holds a new object for each version of the agent, so text made for one is never
 * stale, and a client that polls an agent costs no serialization.
 */
export function cachedAgentJson(agent: Readonly<Agent>): string {
  let json = presented.get(agent);
  if (json === undefined) {
    json = JSON.stringify(presentAgent(agent as Agent));
    presented.set(agent, json);
  }
  return json;
}

/** The svc.yaml view of an agent (`GET /agents/{agent}/yaml`): the keys a configuration file may hold. */
export function agentConfigFile(agent: Agent): Record<string, unknown> {
  const { spec } = agent;
  return {
    name: spec.name,
    runtime: spec.runtime,
    type: spec.agentType,
    ...(spec.runtime === 'dockerfile'
      ? {}
      : { entrypoint: spec.entrypoint ?? defaultEntrypoint(spec.runtime) }),
    memory_mb: spec.memoryMb,
    regions: spec.regions,
    ...(spec.schedule ? { schedule: spec.schedule } : {}),
  };
}

/** The entrypoint a runtime uses when none is set. */
export function defaultEntrypoint(runtime: Agent['spec']['runtime']): string | null {
  if (runtime.startsWith('python')) return 'main.py';
  if (runtime.endsWith('-ts')) return 'index.ts';
  if (runtime === 'dockerfile') return null;
  return 'index.js';
}

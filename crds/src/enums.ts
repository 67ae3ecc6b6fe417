/** Enumerations of the control-plane contract, shared by the CRDs, the API server and the operator. */

/** `agent_type`: a long-lived HTTP service or a run-to-completion job. */
export const AGENT_TYPES = ['service', 'job'] as const;
/** One of {@link AGENT_TYPES}. */
export type AgentType = (typeof AGENT_TYPES)[number];

/** `tier`: the plan an account or agent is on. */
export const TIERS = ['free', 'starter', 'performance', 'enterprise'] as const;
/** One of {@link TIERS}. */
export type Tier = (typeof TIERS)[number];

/** `runtime`: the language runtime an agent is built for. */
export const RUNTIMES = [
  'python3.11',
  'python3.12',
  'python3.13',
  'node20',
  'node22',
  'node20-ts',
  'node22-ts',
  'bun',
  'dockerfile',
] as const;
/** One of {@link RUNTIMES}. */
export type Runtime = (typeof RUNTIMES)[number];

/** Agent status, as the contract reports it. */
export const AGENT_STATUSES = [
  'pending',
  'building',
  'deploying',
  'running',
  'failed',
  'stopped',
  'paused',
  'usage_paused',
  'suspended',
  'archived',
  'deleting',
  'deleted',
] as const;
/** One of {@link AGENT_STATUSES}. */
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** Deployment and run state. */
export const DEPLOYMENT_STATES = [
  'queued',
  'building',
  'deploying',
  'active',
  'failed',
  'rolled_back',
  'superseded',
  'completed',
] as const;
/** One of {@link DEPLOYMENT_STATES}. */
export type DeploymentState = (typeof DEPLOYMENT_STATES)[number];

/** Final deployment and run states: nothing more happens to a deployment in one. */
export const FINAL_DEPLOYMENT_STATES: ReadonlySet<DeploymentState> = new Set<DeploymentState>([
  'active',
  'failed',
  'rolled_back',
  'superseded',
  'completed',
]);

/** Whether `state` (a deployment's, `queued` when unset) is final. */
export function isFinalState(state: string | undefined): boolean {
  return FINAL_DEPLOYMENT_STATES.has((state ?? 'queued') as DeploymentState);
}

/**
 * Whether `state` is final and not `active`: a deployment in one never serves again
 * (a rollback to it builds a new version), and a run in one is over.
 */
export function isRetiredState(state: string | undefined): boolean {
  return isFinalState(state) && state !== 'active';
}

/** How a run was started. */
export const TRIGGER_SOURCES = ['cron', 'manual'] as const;
/** One of {@link TRIGGER_SOURCES}. */
export type TriggerSource = (typeof TRIGGER_SOURCES)[number];

/** What the API asks of an agent's workload: serve, be stopped (`paused`), or be archived. */
export const DESIRED_STATES = ['running', 'paused', 'archived'] as const;
/** One of {@link DESIRED_STATES}. */
export type DesiredState = (typeof DESIRED_STATES)[number];

/** The only `failure_code` the contract defines. */
export const FAILURE_CODES = ['app_lost_on_provider'] as const;

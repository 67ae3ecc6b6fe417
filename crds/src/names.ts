/** API group, version and resource names of the custom resources. */

/** The API group of every custom resource. */
export const API_GROUP = 'svc.dev';
/** The served and stored version. */
export const API_VERSION = 'v1alpha1';
/** `apiVersion` as written in objects. */
export const API_GROUP_VERSION = `${API_GROUP}/${API_VERSION}` as const;

/** Plural resource names, as used in API paths. */
export const PLURALS = {
  Agent: 'agents',
  AgentDeployment: 'agentdeployments',
  Workspace: 'workspaces',
} as const;

/** A kind of the platform's custom resources (what an operator controller reconciles). */
export type ResourceKind = keyof typeof PLURALS;

/** Whether `name` is a {@link ResourceKind}. */
export function isResourceKind(name: string): name is ResourceKind {
  return Object.hasOwn(PLURALS, name);
}

/** Labels the platform puts on its objects. */
export const LABELS = {
  agentName: 'svc.dev/agent-name',
  agentId: 'svc.dev/agent-id',
  workspaceName: 'svc.dev/workspace-name',
  accountId: 'svc.dev/account-id',
  deploymentId: 'svc.dev/deployment-id',
  deploymentVersion: 'svc.dev/deployment-version',
  /** Marks a run among an agent's AgentDeployments. */
  run: 'svc.dev/run',
  component: 'svc.dev/component',
  region: 'svc.dev/region',
  managedBy: 'app.kubernetes.io/managed-by',
} as const;

/** The value of `app.kubernetes.io/managed-by` on what the operator creates. */
export const MANAGED_BY = 'svc-operator';

/** Annotations the platform reads and writes. */
export const ANNOTATIONS = {
  /** RFC 3339 time of the last request the edge sent to the agent (drives scale to zero). */
  lastActivity: 'svc.dev/last-activity',
  /** The deployment a workload's pod template runs. */
  deploymentId: 'svc.dev/deployment-id',
  /**
   * On an Agent (written by the API server) and its service's pod template: the
   * resourceVersion of the agent's secrets when they last changed. A change rolls
   * the service so its processes see the new values.
   */
  secretsRevision: 'svc.dev/secrets-revision',
  /**
   * On an Agent copy a region change is removing from its region (written by the
   * API server just before it deletes the copy): the edge sends the agent's
   * requests to another copy.
   */
  draining: 'svc.dev/draining',
  /**
   * On an AgentDeployment a region change copied into another region as a record
   * of a finished version or run: the state it had, which stands until its status
   * is written, so that region's operator never builds or runs it.
   */
  importedState: 'svc.dev/imported-state',
  /**
   * On an Agent (written by the API server) whose account is over a hard usage
   * limit of its plan this month: the exceeded metrics, comma-separated. The
   * operator stops its service and schedule and reports `usage_paused`; the
   * edge does not wake it. Removed when the month turns or the plan changes.
   */
  usagePaused: 'svc.dev/usage-paused',
  /**
   * On an Agent (written by the API server with `secretsRevision`): the keys of
   * its own secrets stored under a derived data key (see secret-data-keys.ts),
   * as a JSON array, so its pod template can name them one by one.
   */
  longSecretKeys: 'svc.dev/long-secret-keys',
  /** The same for the secrets of the agent's workspace. */
  workspaceLongSecretKeys: 'svc.dev/workspace-long-secret-keys',
  /** On a Secret of secrets: JSON `{data key: secret key}` of each key stored under a derived data key. */
  secretEnvNames: 'svc.dev/secret-env-names',
} as const;

/** Names of the Kubernetes objects that belong to an agent or a deployment. */
export const OBJECT_NAMES = {
  /** The Secret holding a deployment's minted SVC_API_KEY. */
  deploymentKeySecret: (deploymentId: string) => `svc-deploy-${deploymentId}`,
  /** The Secret holding an agent's own secrets (as environment variables). */
  agentSecrets: (agentId: string) => `svc-secrets-${agentId}`,
  /** The Deployment and Service of a `service` agent. */
  workload: (agentId: string) => `agent-${agentId}`,
  /** The build Job of a deployment. */
  buildJob: (deploymentId: string) => `build-${deploymentId}`,
  /** The Job of one run. */
  runJob: (deploymentId: string) => `run-${deploymentId}`,
  /** The CronJob of an agent's schedule. */
  cronJob: (agentId: string) => `cron-${agentId}`,
} as const;

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

/** Labels the platform puts on its objects. */
export const LABELS = {
  agentName: 'svc.dev/agent-name',
  agentId: 'svc.dev/agent-id',
  workspaceName: 'svc.dev/workspace-name',
  accountId: 'svc.dev/account-id',
} as const;

/** Small factories of valid custom resources for tests. */
import { randomUUID } from 'node:crypto';
import {
  API_GROUP_VERSION,
  type Agent,
  type AgentDeployment,
  type Workspace,
} from '../../crds/src/index.js';

const now = () => new Date().toISOString();

/**
 * A valid `Agent` named by a fresh UUID, with `overrides` of its spec and
 * `metadata` of its own (a fixed name or uid, annotations).
 */
export function agentResource(
  namespace: string,
  overrides: Partial<Agent['spec']> = {},
  metadata: Partial<Agent['metadata']> = {},
): Agent {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: 'Agent',
    metadata: {
      name: randomUUID(),
      namespace,
      labels: { 'svc.dev/agent-name': overrides.name ?? 'hello' },
      ...metadata,
    },
    spec: {
      name: 'hello',
      userId: randomUUID(),
      description: null,
      agentType: 'service',
      tier: 'free',
      runtime: 'python3.11',
      memoryMb: 256,
      idleTimeoutMinutes: 5,
      keepAlive: false,
      spawnEnabled: false,
      allowedWorkers: [],
      regions: ['local'],
      schedule: null,
      desiredState: 'running',
      updatedAt: now(),
      ...overrides,
    },
  };
}

/** What {@link agentDeploymentResource} may be given besides its agent. */
export interface AgentDeploymentOverrides {
  metadata?: Partial<AgentDeployment['metadata']>;
  spec?: Partial<AgentDeployment['spec']>;
  /** Merged over the default config (node22 service, index.js, 256 MB, local). */
  config?: Partial<AgentDeployment['spec']['config']>;
  status?: AgentDeployment['status'];
}

/**
 * A valid `AgentDeployment` (version 1 of `agentId`, unless `overrides.spec`
 * says otherwise) named by a fresh UUID; without status unless given one.
 */
export function agentDeploymentResource(
  namespace: string,
  agentId: string = randomUUID(),
  overrides: AgentDeploymentOverrides = {},
): AgentDeployment {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: 'AgentDeployment',
    metadata: {
      name: randomUUID(),
      namespace,
      labels: { 'svc.dev/agent-id': agentId },
      ...overrides.metadata,
    },
    spec: {
      agentId,
      version: 1,
      ephemeral: false,
      archiveId: null,
      ...overrides.spec,
      config: {
        runtime: 'node22',
        agentType: 'service',
        entrypoint: 'index.js',
        memoryMb: 256,
        regions: ['local'],
        ...overrides.spec?.config,
        ...overrides.config,
      },
    },
    ...(overrides.status ? { status: overrides.status } : {}),
  };
}

/** A valid `Workspace` named by a fresh UUID. */
export function workspaceResource(namespace: string, name = 'research'): Workspace {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: 'Workspace',
    metadata: { name: randomUUID(), namespace, labels: { 'svc.dev/workspace-name': name } },
    spec: {
      name,
      userId: randomUUID(),
      description: 'team space',
      regions: ['local'],
      updatedAt: now(),
    },
  };
}

/** Small factories of valid custom resources for tests. */
import { randomUUID } from 'node:crypto';
import {
  API_GROUP_VERSION,
  type Agent,
  type AgentDeployment,
  type Workspace,
} from '../../crds/src/index.js';

const now = () => new Date().toISOString();

/** A valid `Agent` named by a fresh UUID. */
export function agentResource(namespace: string, overrides: Partial<Agent['spec']> = {}): Agent {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: 'Agent',
    metadata: {
      name: randomUUID(),
      namespace,
      labels: { 'svc.dev/agent-name': overrides.name ?? 'hello' },
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

/** A valid `AgentDeployment` (version 1 of `agentId`) named by a fresh UUID. */
export function agentDeploymentResource(
  namespace: string,
  agentId: string = randomUUID(),
): AgentDeployment {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: 'AgentDeployment',
    metadata: { name: randomUUID(), namespace, labels: { 'svc.dev/agent-id': agentId } },
    spec: {
      agentId,
      version: 1,
      ephemeral: false,
      archiveId: null,
      config: {
        runtime: 'node22',
        agentType: 'service',
        entrypoint: 'index.js',
        memoryMb: 256,
        regions: ['local'],
      },
    },
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

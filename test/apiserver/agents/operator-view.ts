/**
 * What the operator would write, written by tests directly through the real
 * Kubernetes API: agent status via the status subresource, and pods labelled
 * with the agent id.
 */
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import {
  API_GROUP,
  API_VERSION,
  LABELS,
  PLURALS,
  type Agent,
  type AgentDeployment,
  type AgentDeploymentStatus,
  type AgentStatusBlock,
} from '../../../crds/src/index.js';
import { kubeChanges, resourceChanges, waitFor } from '../../harness/wait.js';
import { call, type TestServer } from '../control-plane-server.js';

/** Replaces the status of the custom resource `kind` named `id`, as the operator would. */
async function replaceStatus(
  kc: KubeConfig,
  kind: 'Agent' | 'AgentDeployment',
  namespace: string,
  id: string,
  status: AgentStatusBlock | AgentDeploymentStatus,
): Promise<void> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const coords = {
    group: API_GROUP,
    version: API_VERSION,
    namespace,
    plural: PLURALS[kind],
    name: id,
  };
  const current = (await api.getNamespacedCustomObject(coords)) as Agent | AgentDeployment;
  await api.replaceNamespacedCustomObjectStatus({ ...coords, body: { ...current, status } });
}

/** Replaces the status of an Agent, as the operator would. */
export function setAgentStatus(
  kc: KubeConfig,
  namespace: string,
  id: string,
  status: AgentStatusBlock,
): Promise<void> {
  return replaceStatus(kc, 'Agent', namespace, id, status);
}

/**
 * Waits until `server`'s API answers for the agent with the `status` and `deployed` of `written`:
 * it reads agents from a watch cache, which sees a status written behind its back a moment later
 * (on a loaded machine, after the test's next request).
 */
export async function untilServerSees(
  server: Pick<TestServer, 'base' | 'kc'>,
  key: string,
  namespace: string,
  id: string,
  written: Pick<AgentStatusBlock, 'status' | 'deployed'>,
): Promise<void> {
  await waitFor(
    `the API server to see agent ${id} ${written.status}`,
    async () => {
      const { body } = await call<{ status: string; deployed: boolean }>(
        server as TestServer,
        'GET',
        `/api/v1/agents/${id}`,
        { key },
      );
      return body.status === written.status && body.deployed === written.deployed;
    },
    { wakeOn: resourceChanges(server.kc, 'Agent', namespace) },
  );
}

/** Replaces the status of an AgentDeployment, as the operator would. */
export function setDeploymentStatus(
  kc: KubeConfig,
  namespace: string,
  id: string,
  status: AgentDeploymentStatus,
): Promise<void> {
  return replaceStatus(kc, 'AgentDeployment', namespace, id, status);
}

/** Reads an Agent resource. */
export async function readAgent(kc: KubeConfig, namespace: string, id: string): Promise<Agent> {
  const api = kc.makeApiClient(CustomObjectsApi);
  return (await api.getNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    namespace,
    plural: PLURALS.Agent,
    name: id,
  })) as Agent;
}

/**
 * Creates a pod labelled as one of the agent's machines. While the namespace's default
 * ServiceAccount does not exist yet (the controller manager creates it shortly after the
 * namespace), tries again whenever its ServiceAccounts change (and every second), for 15 s at most.
 */
export async function createAgentPod(
  kc: KubeConfig,
  namespace: string,
  agentId: string,
  name: string,
): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  let refused: string | undefined;
  await waitFor(
    `the pod ${name} to be admitted (it needs the default ServiceAccount of ${namespace})`,
    async () => {
      try {
        await core.createNamespacedPod({
          namespace,
          body: {
            metadata: { name, labels: { [LABELS.agentId]: agentId, 'svc.dev/region': 'local' } },
            spec: { containers: [{ name: 'agent', image: 'registry.invalid/agent:1' }] },
          },
        });
        return true;
      } catch (err) {
        refused = String((err as { body?: unknown }).body ?? err);
        if (!refused.includes('serviceaccount')) throw err;
        return undefined;
      }
    },
    {
      timeoutMs: 15_000,
      wakeOn: kubeChanges(kc, `/api/v1/namespaces/${namespace}/serviceaccounts`),
      lastSeen: () => refused,
    },
  );
}

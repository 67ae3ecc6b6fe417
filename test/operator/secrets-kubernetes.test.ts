/**
 * Agent secrets with the Kubernetes driver, against a real kube-apiserver (the
 * test plays the kubelet): a service's pods read the agent's Secret through
 * envFrom and no value is copied into a Deployment, a Job or a custom
 * resource; a rotation changes the pod template (the Deployment rolls).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateSecret } from '../../common/secrets.js';
import { ANNOTATIONS, OBJECT_NAMES } from '../../crds/src/index.js';
import { readAgent } from '../apiserver/agents/operator-view.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { AgentFlow } from './agent-flow.js';
import { clients, eventually, startOperator, type RunningOperator } from './operator-harness.js';

let server: TestServer;
let operator: RunningOperator;
let owner: Caller;
let flow: AgentFlow;

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server, { tier: 'starter' });
  operator = await startOperator(server.kc, (ns) => ns === owner.namespace);
  flow = new AgentFlow(server, owner, 'secrets-k8s');
});

afterAll(async () => {
  await operator.stop();
  await server.close();
});

const value = () => `k8s-${generateSecret().slice(0, 24)}`;

async function workload(agentId: string) {
  return clients(server.kc).apps.readNamespacedDeployment({
    namespace: owner.namespace,
    name: OBJECT_NAMES.workload(agentId),
  });
}

describe('agent secrets with the Kubernetes driver', () => {
  it('references the Secret from the pods and rolls them when a secret is rotated', async () => {
    const agent = await flow.newAgent();
    const first = value();
    const set = await call(server, 'POST', `/api/v1/agents/${agent.id}/secrets`, {
      key: owner.key,
      body: { key: 'API_TOKEN', value: first },
    });
    expect(set.status).toBe(201);
    await flow.deployActive(agent);

    const before = await workload(agent.id);
    const container = before.spec?.template.spec?.containers[0];
    expect(container?.envFrom).toEqual([
      { secretRef: { name: OBJECT_NAMES.agentSecrets(agent.id), optional: true } },
    ]);
    const revision = (await readAgent(server.kc, owner.namespace, agent.id)).metadata.annotations?.[
      ANNOTATIONS.secretsRevision
    ];
    expect(revision).toBeTruthy();
    expect(before.spec?.template.metadata?.annotations?.[ANNOTATIONS.secretsRevision]).toBe(
      revision,
    );
    expect(JSON.stringify(before)).not.toContain(first);

    const second = value();
    const rotated = await call(
      server,
      'POST',
      `/api/v1/agents/${agent.id}/secrets/API_TOKEN/rotate`,
      {
        key: owner.key,
        body: { value: second },
      },
    );
    expect(rotated.status).toBe(200);
    const after = await eventually(
      () => workload(agent.id),
      (d) => d.spec?.template.metadata?.annotations?.[ANNOTATIONS.secretsRevision] !== revision,
      'the pod template of the rotated secrets',
    );
    expect(after.spec?.template.metadata?.annotations?.[ANNOTATIONS.deploymentId]).toBe(
      before.spec?.template.metadata?.annotations?.[ANNOTATIONS.deploymentId],
    );
    const cr = await readAgent(server.kc, owner.namespace, agent.id);
    for (const text of [JSON.stringify(after), JSON.stringify(cr)]) {
      expect(text).not.toContain(first);
      expect(text).not.toContain(second);
    }
  });
});

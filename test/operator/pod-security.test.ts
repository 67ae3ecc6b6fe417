/**
 * The Kubernetes driver's pods and NetworkPolicies against the real
 * kube-apiserver and its Pod Security admission: in an account namespace that
 * enforces "restricted", the operator's build, service and run pods are
 * admitted and created by the controllers; the schedule's trigger pod and the
 * two documented exceptions of a dockerfile agent are checked by server-side
 * dry runs; the namespace's NetworkPolicies are accepted and say what agents
 * may reach.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  NetworkingV1Api,
  PatchStrategy,
  setHeaderOptions,
  type V1PodSpec,
} from '@kubernetes/client-node';
import { LABELS, type Agent, type AgentDeployment } from '../../crds/src/index.js';
import {
  AGENT_POLICY_NAME,
  BUILD_POLICY_NAME,
  PRIVATE_IPV4,
} from '../../operator/src/drivers/kubernetes/network-policy.js';
import {
  buildJob,
  scheduleCronJob,
  serviceDeployment,
} from '../../operator/src/drivers/kubernetes/workloads.js';
import { loadNetworkPolicyConfig } from '../../operator/src/network-policy-config.js';
import { readAgent } from '../apiserver/agents/operator-view.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { agentDeploymentResource } from '../factories/custom-resources.js';
import { AgentFlow, type AgentRecord } from './agent-flow.js';
import {
  clients,
  eventually,
  podsOf,
  startOperator,
  type RunningOperator,
} from './operator-harness.js';
import { kubeChanges, waitFor } from '../harness/wait.js';

let server: TestServer;
let operator: RunningOperator;
let flow: AgentFlow;
let baselineNamespace: string;

const ENFORCE = 'pod-security.kubernetes.io/enforce';

beforeAll(async () => {
  server = await startControlPlaneServer();
  const owner = await createCaller(server, { tier: 'starter' });
  flow = new AgentFlow(server, owner, 'psa');
  // The first agent makes the API server create the account's namespace.
  await flow.newAgent();
  await clients(server.kc).core.patchNamespace(
    {
      name: owner.namespace,
      body: { metadata: { labels: { [ENFORCE]: 'restricted' } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  const other = await createCaller(server, { tier: 'starter' });
  await new AgentFlow(server, other, 'base').newAgent();
  baselineNamespace = other.namespace;
  operator = await startOperator(server.kc, (ns) => ns === owner.namespace, {
    networkPolicy: loadNetworkPolicyConfig({
      SVC_NETPOL_CLUSTER_CIDRS: '10.96.0.0/16,fd00:10:96::/108',
    }),
  });
});

afterAll(async () => {
  await operator.stop();
  await server.close();
});

/** Pod Security's verdict on `spec` in `namespace`, from a server-side dry run: null when admitted. */
async function admission(namespace: string, spec: V1PodSpec | undefined): Promise<string | null> {
  // The controller manager creates a new namespace's default ServiceAccount shortly after it, and
  // a pod is refused until it is there.
  await waitFor(
    `the default ServiceAccount of ${namespace}`,
    () =>
      clients(server.kc)
        .core.readNamespacedServiceAccount({ name: 'default', namespace })
        .then(
          () => true,
          (err: unknown) => {
            if ((err as { code?: number }).code === 404) return false;
            throw err;
          },
        ),
    {
      timeoutMs: 15_000,
      wakeOn: kubeChanges(server.kc, `/api/v1/namespaces/${namespace}/serviceaccounts`),
    },
  );
  try {
    await clients(server.kc).core.createNamespacedPod({
      namespace,
      dryRun: 'All',
      body: { metadata: { generateName: 'dry-run-', labels: { [LABELS.agentId]: 'x' } }, spec },
    });
    return null;
  } catch (err) {
    if ((err as { code?: number }).code !== 403) throw err;
    const message = String((err as { body?: unknown }).body ?? err);
    return (JSON.parse(message) as { message: string }).message;
  }
}

describe('in a namespace enforcing "restricted"', () => {
  let agent: AgentRecord;

  it("admits a service's build and serving pods, which the controllers create", async () => {
    agent = await flow.newAgent();
    const d = await flow.deploy(agent);
    const [build] = await podsOf(
      server.kc,
      flow.owner.namespace,
      `${LABELS.deploymentId}=${d.id},${LABELS.component}=build`,
    );
    expect(build?.spec?.automountServiceAccountToken).toBe(false);
    await flow.finishBuild(d);
    const [serving] = await podsOf(
      server.kc,
      flow.owner.namespace,
      `${LABELS.deploymentId}=${d.id},${LABELS.component}=service`,
    );
    expect(serving?.spec?.securityContext).toEqual({
      seccompProfile: { type: 'RuntimeDefault' },
      runAsNonRoot: true,
    });
    await flow.serveReady(agent, d);
    await flow.waitState(d.id, 'active');
  });

  it("admits a job agent's run pod", async () => {
    const job = await flow.newAgent({ agent_type: 'job' });
    await flow.deployActive(job);
    const run = await call<{ deployment_id: string }>(
      server,
      'POST',
      `/api/v1/agents/${job.id}/run`,
      { key: flow.owner.key, body: { payload: null } },
    );
    expect(run.status).toBe(202);
    const [pod] = await podsOf(
      server.kc,
      flow.owner.namespace,
      `${LABELS.deploymentId}=${run.body.deployment_id},${LABELS.component}=run`,
    );
    expect(pod?.spec?.containers[0]?.securityContext).toMatchObject({
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
  });

  it("admits the schedule's trigger pod", async () => {
    const [resource, deployment] = await resourcesOf(agent);
    const cron = scheduleCronJob(resource, deployment, operator.cfg, false);
    expect(
      await admission(flow.owner.namespace, cron.spec?.jobTemplate.spec?.template.spec),
    ).toBeNull();
  });

  it("refuses a dockerfile agent's own pod for runAsNonRoot alone, and its image build for root and capabilities", async () => {
    const [resource, deployment] = await resourcesOf(agent, 'dockerfile');
    const own = await admission(
      flow.owner.namespace,
      serviceDeployment(resource, deployment, operator.cfg, 1).spec?.template.spec,
    );
    expect(own).toMatch(/violates PodSecurity "restricted:latest": runAsNonRoot != true/);
    expect(own).not.toMatch(/allowPrivilegeEscalation|unrestricted capabilities|seccompProfile/);
    const build = await admission(
      flow.owner.namespace,
      buildJob(deployment, operator.cfg).spec?.template.spec,
    );
    expect(build).toMatch(/unrestricted capabilities/);
    expect(build).toMatch(/runAsNonRoot != true/);
    expect(build).not.toMatch(/allowPrivilegeEscalation|seccompProfile/);
  });
});

describe('in an account namespace as the API server creates it', () => {
  it('enforces "baseline", which admits the dockerfile exceptions too', async () => {
    const ns = await clients(server.kc).core.readNamespace({ name: baselineNamespace });
    expect(ns.metadata?.labels).toMatchObject({
      [ENFORCE]: 'baseline',
      'pod-security.kubernetes.io/warn': 'restricted',
    });
    const [resource, deployment] = await resourcesOf(await flow.newAgent(), 'dockerfile');
    for (const spec of [
      serviceDeployment(resource, deployment, operator.cfg, 1).spec?.template.spec,
      buildJob(deployment, operator.cfg).spec?.template.spec,
    ]) {
      expect(await admission(baselineNamespace, spec)).toBeNull();
    }
  });
});

describe("the account namespace's NetworkPolicies", () => {
  const networking = () => server.kc.makeApiClient(NetworkingV1Api);

  it('confine every agent pod: in from the edge only, out to DNS, the internet and the API', async () => {
    const policy = await eventually(
      () =>
        networking().readNamespacedNetworkPolicy({
          namespace: flow.owner.namespace,
          name: AGENT_POLICY_NAME,
        }),
      () => true,
      'agent policy',
    );
    const spec = policy.spec;
    expect(spec?.podSelector?.matchExpressions).toEqual([
      { key: LABELS.agentId, operator: 'Exists' },
    ]);
    expect(spec?.policyTypes).toEqual(['Ingress', 'Egress']);
    const platform = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'svc-system' } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'svc-apiserver' } },
    };
    expect(spec?.ingress).toEqual([
      { _from: [platform], ports: [{ protocol: 'TCP', port: 8080 }] },
    ]);
    const [dns, internet, api, ...rest] = spec?.egress ?? [];
    expect(rest).toEqual([]);
    expect(dns).toEqual({
      ports: [
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 53 },
      ],
    });
    expect(internet?.ports).toBeUndefined();
    expect(internet?.to).toEqual([
      { ipBlock: { cidr: '0.0.0.0/0', except: [...PRIVATE_IPV4, '10.96.0.0/16'] } },
      {
        ipBlock: { cidr: '::/0', except: ['fc00::/7', 'fe80::/10', '::1/128', 'fd00:10:96::/108'] },
      },
    ]);
    expect(api).toEqual({
      to: [platform],
      ports: [
        { protocol: 'TCP', port: 8000 },
        { protocol: 'TCP', port: 8001 },
      ],
    });
  });

  it('let build pods push to the in-cluster registry as well', async () => {
    const policy = await networking().readNamespacedNetworkPolicy({
      namespace: flow.owner.namespace,
      name: BUILD_POLICY_NAME,
    });
    expect(policy.spec?.podSelector?.matchLabels).toEqual({ [LABELS.component]: 'build' });
    expect(policy.spec?.policyTypes).toEqual(['Egress']);
    expect(policy.spec?.egress?.[0]?.ports).toEqual([{ protocol: 'TCP', port: 5000 }]);
  });
});

/** The agent's resources as the operator reads them, its first deployment retargeted to `runtime`. */
async function resourcesOf(
  agent: AgentRecord,
  runtime?: 'dockerfile',
): Promise<[Agent, AgentDeployment]> {
  const resource = await readAgent(server.kc, flow.owner.namespace, agent.id);
  // Never created: the pod specs built from it go to admission as dry runs.
  const deployment = agentDeploymentResource(flow.owner.namespace, agent.id, {
    metadata: {
      name: '00000000-0000-4000-8000-000000000001',
      uid: '00000000-0000-4000-8000-0000000000aa',
    },
    config: {
      runtime: runtime ?? resource.spec.runtime,
      agentType: resource.spec.agentType,
      entrypoint: undefined,
    },
  });
  return [
    {
      ...resource,
      spec: {
        ...resource.spec,
        runtime: runtime ?? resource.spec.runtime,
        schedule: '*/10 * * * *',
      },
    },
    deployment,
  ];
}

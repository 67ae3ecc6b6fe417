/**
 * Agent compute with the Kubernetes driver: the operator watches the service's
 * pods and reports each pod's time, from the start the kubelet records to the
 * pod's deletion, with its container's memory limit; the build's time comes
 * from its Job. The test plays the kubelet (pod status) over the real
 * kube-apiserver and controller manager, and reads the usage routes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LABELS } from '../../crds/src/index.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { AgentFlow } from './agent-flow.js';
import {
  clients,
  eventually,
  podsOf,
  startOperator,
  type RunningOperator,
} from './operator-harness.js';
import { resourceChanges } from '../harness/wait.js';

type UsageEvent = {
  kind: string;
  deployment_id: string | null;
  started_at: string;
  ended_at: string;
  seconds: number;
  memory_mb: number;
  mb_seconds: number;
};

let server: TestServer;
let owner: Caller;
let operator: RunningOperator;

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server, { tier: 'enterprise' });
  operator = await startOperator(server.kc, (ns) => ns === owner.namespace, {
    internalApiUrl: server.base,
    internalSecret: server.internalSecret,
  });
});

afterAll(async () => {
  await operator?.stop();
  await server?.close();
});

const eventsOf = async (agentId: string, kind: string) =>
  (
    await call<{ events: UsageEvent[] }>(
      server,
      'GET',
      `/api/v1/usage/agent/${agentId}/events?kind=${kind}`,
      { key: owner.key },
    )
  ).body.events;

describe('usage with the Kubernetes driver', () => {
  it("reports a service pod's time from its start to its deletion, and the build", async () => {
    const flow = new AgentFlow(server, owner, 'kmeter');
    const agent = await flow.newAgent({ memory_mb: 256 });
    const d = await flow.deploy(agent);
    await flow.finishBuild(d);
    const selector = `${LABELS.agentId}=${agent.id},${LABELS.component}=service`;
    await podsOf(server.kc, owner.namespace, selector);
    // The kubelet's start time has whole seconds.
    const readyCalled = Math.floor(Date.now() / 1000) * 1000;
    await flow.serveReady(agent, d);
    await flow.waitState(d.id, 'active');
    const ready = Date.now();
    // A stop needs the agent deployed, which the operator records after the deployment is active.
    await eventually(
      async () =>
        (
          await call<{ deployed: boolean }>(server, 'GET', `/api/v1/agents/${agent.id}`, {
            key: owner.key,
          })
        ).body,
      (a) => a.deployed,
      'the agent deployed',
      30_000,
      resourceChanges(server.kc, 'Agent', owner.namespace),
    );
    const stopRequested = Date.now();
    const stopped = await call(server, 'POST', `/api/v1/agents/${agent.id}/stop`, {
      key: owner.key,
    });
    expect(stopped.status).toBe(202);
    const [machine] = await eventually(
      () => eventsOf(agent.id, 'compute'),
      (events) => events.length > 0,
      'the pod reported',
    );
    const seen = Date.now();
    expect(machine).toMatchObject({ deployment_id: d.id, memory_mb: 256 });
    const started = Date.parse(machine!.started_at);
    const ended = Date.parse(machine!.ended_at);
    expect(started).toBeGreaterThanOrEqual(readyCalled);
    expect(started).toBeLessThanOrEqual(ready);
    expect(ended).toBeGreaterThanOrEqual(stopRequested);
    expect(ended).toBeLessThanOrEqual(seen);
    expect(machine!.seconds).toBeCloseTo((ended - started) / 1000, 2);
    expect(machine!.mb_seconds).toBeCloseTo(machine!.seconds * 256, 0);
    // The pod is gone, and was reported once.
    const pods = await clients(server.kc).core.listNamespacedPod({
      namespace: owner.namespace,
      labelSelector: selector,
    });
    expect(pods.items).toEqual([]);
    expect(await eventsOf(agent.id, 'compute')).toHaveLength(1);
    const builds = await eventually(
      () => eventsOf(agent.id, 'build'),
      (events) => events.length === 1,
      'the build reported',
    );
    expect(builds[0]!.deployment_id).toBe(d.id);
  });
});

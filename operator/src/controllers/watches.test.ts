/**
 * What each controller declares it watches: which events enqueue which objects. Pure:
 * the watches map objects to queue refs, reading siblings from a view over plain lists.
 */
import { describe, expect, it } from '@jest/globals';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Agent, AgentDeployment, Workspace } from '../../../crds/src/index.js';
import {
  agentDeploymentResource,
  agentResource,
  workspaceResource,
} from '../../../test/factories/custom-resources.js';
import { createLogger } from '../../../common/logger.js';
import { controllerRef } from '../../../crds/src/owner-reference.js';
import { loadOperatorConfig } from '../config.js';
import type {
  Controller,
  Enqueue,
  ListCached,
  ObjectRef,
  SourceName,
} from '../control-loop/controller.js';
import { operatorControllers, type OperatorControllers } from './index.js';
import { noEvents } from '../events/event-recorder.js';
import type { ClusterView } from './views.js';

const NS = 'svc-live-a';
const cfg = loadOperatorConfig({ SVC_INTERNAL_SECRET: 'k3Jx9vQ2mZp7Lw4tR8nB1cY6hF0sD5gA' });

function withUid<T extends { metadata: { uid?: string } }>(obj: T): T {
  obj.metadata.uid = `uid-${Math.random()}`;
  return obj;
}

/** The controllers (and their wiring) over a cache holding `agents`, `deployments` and `workspaces`. */
function wired(
  agents: Agent[],
  deployments: AgentDeployment[],
  workspaces: Workspace[],
  enqueue: Enqueue = () => undefined,
): OperatorControllers {
  const view: ClusterView = {
    deployments: () => deployments,
    deploymentsOf: (ns, id) =>
      deployments.filter((d) => d.metadata.namespace === ns && d.spec.agentId === id),
    agentsIn: (ns) => agents.filter((a) => a.metadata.namespace === ns),
    workspacesIn: (ns) => workspaces.filter((w) => w.metadata.namespace === ns),
  };
  return operatorControllers({
    // The watches never write or run anything.
    resources: undefined as never,
    cached: undefined as never,
    driver: undefined as never,
    view,
    cfg,
    enqueue,
    log: createLogger('test', 'silent'),
    events: noEvents,
  });
}

/** The controllers over a cache holding `agents`, `deployments` and `workspaces`, by kind. */
function controllers(
  agents: Agent[],
  deployments: AgentDeployment[],
  workspaces: Workspace[],
): Map<string, Controller> {
  return new Map(wired(agents, deployments, workspaces).controllers.map((c) => [c.kind, c]));
}

/** What an event on `obj` in `source` enqueues for `controller`. */
function enqueued(
  controller: Controller | undefined,
  source: SourceName,
  obj: unknown,
): ObjectRef[] {
  return (controller?.watches ?? [])
    .filter((w) => w.source === source)
    .flatMap((w) => (w.map as (o: unknown) => ObjectRef[])(obj));
}

const ref = (o: { metadata: { namespace?: string; name?: string } }): ObjectRef => ({
  namespace: o.metadata.namespace ?? '',
  name: o.metadata.name ?? '',
});

describe('the Agent controller', () => {
  const agent = withUid(agentResource(NS));
  const version = withUid(agentDeploymentResource(NS, agent.metadata.name));
  const c = controllers([agent], [version], []).get('Agent');

  it('is enqueued by its own objects and by its deployments and runs', () => {
    expect(enqueued(c, 'agents', agent)).toEqual([ref(agent)]);
    expect(enqueued(c, 'agentdeployments', version)).toEqual([ref(agent)]);
  });

  it('is enqueued by the workloads it owns, and not by those of a deployment', () => {
    const owned: KubernetesObject = {
      metadata: { name: 'svc', namespace: NS, ownerReferences: [controllerRef(agent)] },
    };
    const ofVersion: KubernetesObject = {
      metadata: { name: 'build', namespace: NS, ownerReferences: [controllerRef(version)] },
    };
    for (const source of ['deployments', 'jobs', 'cronjobs'] as const) {
      expect(enqueued(c, source, owned)).toEqual([ref(agent)]);
      expect(enqueued(c, source, ofVersion)).toEqual([]);
    }
  });
});

describe('the AgentDeployment controller', () => {
  const agent = withUid(agentResource(NS));
  const done = withUid(agentDeploymentResource(NS, agent.metadata.name));
  done.status = { state: 'active' };
  const waiting = withUid(agentDeploymentResource(NS, agent.metadata.name));
  waiting.status = { state: 'queued' };
  const building = withUid(agentDeploymentResource(NS, agent.metadata.name));
  building.status = { state: 'building' };
  const c = controllers([agent], [done, waiting, building], []).get('AgentDeployment');

  it('is enqueued by its own objects and the Jobs they own', () => {
    expect(enqueued(c, 'agentdeployments', building)).toEqual([ref(building)]);
    const job: KubernetesObject = {
      metadata: { name: 'build', namespace: NS, ownerReferences: [controllerRef(building)] },
    };
    expect(enqueued(c, 'jobs', job)).toEqual([ref(building)]);
  });

  it('wakes every queued version when one holds no build slot any more', () => {
    expect(enqueued(c, 'agentdeployments', done)).toEqual([ref(done), ref(waiting)]);
    expect(enqueued(c, 'agentdeployments', waiting)).toEqual([ref(waiting)]);
  });
});

describe('the Workspace controller', () => {
  const research = workspaceResource(NS, 'research');
  const other = workspaceResource('svc-live-b', 'other');
  const agent = agentResource(NS, { workspaceName: 'research' });
  const c = controllers([agent], [], [research, other]).get('Workspace');

  it('is enqueued by its own objects and by every agent of its namespace', () => {
    expect(enqueued(c, 'workspaces', research)).toEqual([ref(research)]);
    expect(enqueued(c, 'agents', agent)).toEqual([ref(research)]);
  });
});

describe('the wiring around the controllers', () => {
  it('routes the driver’s notifications to the controller of the object’s kind', () => {
    const seen: string[] = [];
    const { driverNotifier } = wired([], [], [], (kind, r) =>
      seen.push(`${kind}:${r.namespace}/${r.name}`),
    );
    driverNotifier.agent(NS, 'a1');
    driverNotifier.deployment(NS, 'd1');
    expect(seen).toEqual([`Agent:${NS}/a1`, `AgentDeployment:${NS}/d1`]);
  });

  it('tells the driver the ids of every Agent and AgentDeployment the caches hold', () => {
    const agent = agentResource(NS);
    const version = agentDeploymentResource('svc-live-b', agent.metadata.name);
    const held: Record<string, readonly unknown[]> = {
      agents: [agent],
      agentdeployments: [version],
      workspaces: [workspaceResource(NS, 'research')],
    };
    const list = ((source: string) => held[source] ?? []) as ListCached;
    const live = wired([], [], []).liveObjects(list);
    expect([...live.agents]).toEqual([agent.metadata.name]);
    expect([...live.deployments]).toEqual([version.metadata.name]);
  });
});

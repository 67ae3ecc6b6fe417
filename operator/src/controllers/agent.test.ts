import { describe, expect, it } from '@jest/globals';
import {
  ANNOTATIONS,
  CONDITION_REASON_PATTERN,
  type Agent,
  type AgentDeployment,
  type Condition,
  type DeploymentState,
} from '../../../crds/src/index.js';
import {
  agentDeploymentResource,
  agentResource,
} from '../../../test/factories/custom-resources.js';
import type { ServingStatus } from '../drivers/driver.js';
import { setCondition } from '../conditions.js';
import {
  agentEvents,
  agentStatusBlock,
  archivedCondition,
  READY_REASONS,
  readyCondition,
  WORKLOAD_LOST,
  idleFor,
  isLost,
  LOST_MESSAGE,
  scheduleSuspended,
  serviceReplicas,
  statusChanged,
  workloadCondition,
  type Observed,
} from './agent-decisions.js';
import { versionsOf } from './agent-status.js';

const now = new Date('2026-03-01T12:00:00Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000).toISOString();
const cfg = { agentDomain: 'agents.localhost', agentScheme: 'http', agentPort: 8080 };

function agent(
  spec: Partial<Agent['spec']> = {},
  metadata: Partial<Agent['metadata']> = {},
): Agent {
  return agentResource(
    'ns',
    { addressLabel: 'hello-abc123', ...spec },
    { name: 'a1', ...metadata },
  );
}

function version(v: number, state: DeploymentState, deployedAt?: string): AgentDeployment {
  return agentDeploymentResource('ns', 'a1', {
    metadata: { name: `d${v}` },
    spec: { version: v },
    status: { state, ...(deployedAt ? { deployedAt } : {}) },
  });
}

const gone: ServingStatus = {
  exists: false,
  deploymentId: null,
  desiredReplicas: 0,
  ready: false,
  failed: null,
};

describe('isLost', () => {
  const active = versionsOf([version(1, 'active')]);

  it('is a loss when the workload the operator saw for the active version is gone', () => {
    const seen = agent({}, { name: 'a1' });
    seen.status = { workloadVersion: 1 };
    expect(isLost(seen, active, gone)).toBe(true);
  });

  it('is no loss while it exists, before it was ever seen, or while a newer version rolls out', () => {
    const seen = agent();
    seen.status = { workloadVersion: 1 };
    expect(isLost(seen, active, { ...gone, exists: true, deploymentId: 'd1' })).toBe(false);
    expect(isLost(agent(), active, gone)).toBe(false);
    expect(isLost(seen, versionsOf([version(1, 'active'), version(2, 'deploying')]), gone)).toBe(
      false,
    );
    expect(isLost(seen, versionsOf([]), gone)).toBe(false);
  });
});

describe('idleFor and serviceReplicas', () => {
  const active = versionsOf([version(1, 'active', minutesAgo(30))]);

  it('idles a service past its timeout since the last request, and scales it to zero', () => {
    const quiet = agent(
      { idleTimeoutMinutes: 5 },
      { annotations: { [ANNOTATIONS.lastActivity]: minutesAgo(6) } },
    );
    const idle = idleFor(quiet, active, now);
    expect(idle).toEqual({ idle: true, remainingMs: null });
    expect(serviceReplicas(quiet, idle)).toEqual({ replicas: 0, requeueAfter: undefined });
  });

  it('keeps a recently used service running and looks again when it would become idle', () => {
    const busy = agent(
      { idleTimeoutMinutes: 5 },
      { annotations: { [ANNOTATIONS.lastActivity]: minutesAgo(2) } },
    );
    const idle = idleFor(busy, active, now);
    expect(idle).toEqual({ idle: false, remainingMs: 3 * 60_000 });
    expect(serviceReplicas(busy, idle)).toEqual({ replicas: 1, requeueAfter: 3 * 60_000 });
  });

  it('counts from the active version’s deployment, or from now while a version rolls out', () => {
    const fresh = versionsOf([version(1, 'active', minutesAgo(1))]);
    expect(idleFor(agent(), fresh, now).remainingMs).toBe(4 * 60_000);
    const rolling = versionsOf([version(1, 'active', minutesAgo(30)), version(2, 'deploying')]);
    expect(idleFor(agent(), rolling, now).remainingMs).toBe(5 * 60_000);
    expect(idleFor(agent(), active, now).idle).toBe(true);
  });

  it('never idles with keep_alive or a zero timeout, and runs nothing while paused', () => {
    expect(idleFor(agent({ keepAlive: true }), active, now)).toEqual({
      idle: false,
      remainingMs: null,
    });
    expect(idleFor(agent({ idleTimeoutMinutes: 0 }), active, now).idle).toBe(false);
    const paused = agent({ desiredState: 'paused', keepAlive: true });
    expect(serviceReplicas(paused, idleFor(paused, active, now)).replicas).toBe(0);
  });
});

describe('scheduleSuspended', () => {
  it('suspends the CronJob when the agent or its schedule is paused', () => {
    expect(scheduleSuspended(agent({ schedule: '0 * * * *' }))).toBe(false);
    expect(scheduleSuspended(agent({ schedule: '0 * * * *', schedulePaused: true }))).toBe(true);
    expect(scheduleSuspended(agent({ schedule: '0 * * * *', desiredState: 'paused' }))).toBe(true);
  });
});

describe('conditions', () => {
  it('reports the workload available, scaled to zero, or rolling out, at the generation', () => {
    const a = agent({}, { generation: 3 });
    expect(workloadCondition(a, version(2, 'active'), true, 1)).toEqual({
      type: 'WorkloadAvailable',
      status: 'True',
      reason: 'Available',
      message: 'Serving version 2.',
      observedGeneration: 3,
    });
    expect(workloadCondition(a, version(2, 'active'), true, 0).reason).toBe('ScaledToZero');
    expect(workloadCondition(a, version(2, 'deploying'), false, 1)).toMatchObject({
      status: 'False',
      reason: 'RollingOut',
      message: 'Rolling out version 2.',
    });
    expect(archivedCondition(a)).toMatchObject({ status: 'False', reason: 'Archived' });
  });
});

describe('Ready', () => {
  it('gives each status, and a lost workload, a CamelCase reason the CRD accepts', () => {
    for (const reason of [...Object.values(READY_REASONS), WORKLOAD_LOST])
      expect(reason).toMatch(new RegExp(CONDITION_REASON_PATTERN));
    const a = agent({}, { generation: 2 });
    expect(readyCondition(a, 'usage_paused', false)).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'UsagePaused',
      message: 'The agent is usage_paused.',
      observedGeneration: 2,
    });
    expect(readyCondition(a, 'running', false)).toMatchObject({
      status: 'True',
      reason: 'Running',
    });
    expect(readyCondition(a, 'failed', true)).toMatchObject({
      reason: 'WorkloadLost',
      message: LOST_MESSAGE,
    });
  });
});

describe('agentEvents', () => {
  const t = (m: number) => new Date(now.getTime() + m * 60_000);
  /** The conditions after setting `changes` in order, each a minute later. */
  const after = (
    base: Condition[] | undefined,
    ...changes: Array<Omit<Condition, 'lastTransitionTime'>>
  ) =>
    changes.reduce<Condition[] | undefined>(
      (list, change, i) => setCondition(list, change, t(i)),
      base,
    );
  const ready = (status: 'True' | 'False', reason: string) => ({
    type: 'Ready',
    status,
    reason,
    message: `The agent is ${reason}.`,
  });
  const workload = (status: 'True' | 'False', reason: string) => ({
    type: 'WorkloadAvailable',
    status,
    reason,
    message: 'Serving version 1.',
  });

  it('records each change of Ready, failures as warnings, and nothing when it stays', () => {
    const building = after(undefined, ready('False', 'Building'));
    expect(agentEvents(undefined, building)).toEqual([
      { type: 'Normal', reason: 'Building', note: 'The agent is Building.' },
    ]);
    const running = after(building, ready('True', 'Running'), workload('True', 'Available'));
    expect(agentEvents(building, running)).toEqual([
      { type: 'Normal', reason: 'Running', note: 'The agent is Running.' },
    ]);
    expect(agentEvents(running, after(running, ready('True', 'Running')))).toEqual([]);
    for (const reason of ['Failed', 'WorkloadLost', 'UsagePaused'])
      expect(agentEvents(running, after(running, ready('False', reason)))).toEqual([
        expect.objectContaining({ type: 'Warning', reason }),
      ]);
  });

  it('records ScaledToZero and Woken for an idle running service, not for a pause', () => {
    const running = after(undefined, ready('True', 'Running'), workload('True', 'Available'));
    const idle = after(running, workload('True', 'ScaledToZero'));
    expect(agentEvents(running, idle)).toEqual([
      expect.objectContaining({ type: 'Normal', reason: 'ScaledToZero' }),
    ]);
    // Woken as soon as it leaves zero (rolling out again), not again once available.
    const waking = after(idle, workload('False', 'RollingOut'));
    expect(agentEvents(idle, waking)).toEqual([
      expect.objectContaining({ type: 'Normal', reason: 'Woken' }),
    ]);
    expect(agentEvents(waking, after(waking, workload('True', 'Available')))).toEqual([]);
    const paused = after(running, ready('False', 'Paused'), workload('True', 'ScaledToZero'));
    expect(agentEvents(running, paused)).toEqual([
      expect.objectContaining({ type: 'Normal', reason: 'Paused' }),
    ]);
    // A resume is its Running event; idle from the start, it is also scaled to zero at once.
    const resumed = after(paused, ready('True', 'Running'), workload('False', 'RollingOut'));
    expect(agentEvents(paused, resumed).map((e) => e.reason)).toEqual(['Running']);
    const deploying = after(
      undefined,
      ready('False', 'Deploying'),
      workload('False', 'RollingOut'),
    );
    const idleAtOnce = after(deploying, ready('True', 'Running'), workload('True', 'ScaledToZero'));
    expect(agentEvents(deploying, idleAtOnce).map((e) => e.reason)).toEqual([
      'Running',
      'ScaledToZero',
    ]);
  });
});

describe('agentStatusBlock', () => {
  const observed = (o: Partial<Observed> = {}): Observed => {
    const deployments = o.deployments ?? [version(1, 'active', minutesAgo(1))];
    return {
      versions: versionsOf(deployments),
      deployments,
      lost: false,
      endpoint: '127.0.0.1:40001',
      workloadVersion: 1,
      conditions: undefined,
      requeueAfter: undefined,
      ...o,
    };
  };

  it('reports a running service with its address, active version and Ready condition', () => {
    const { status, requeueAfter } = agentStatusBlock(agent(), observed(), cfg, now);
    expect(status).toMatchObject({
      status: 'running',
      deployed: true,
      url: 'http://hello-abc123.agents.localhost:8080',
      endpoint: '127.0.0.1:40001',
      activeVersion: 1,
      activeDeploymentId: 'd1',
      workloadVersion: 1,
      failureMessage: null,
      regionsTotal: 1,
      regionsReady: 1,
    });
    expect(status.conditions).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Running' }),
    ]);
    expect(status).not.toHaveProperty('failureCode');
    expect(requeueAfter).toBeUndefined();
  });

  it('reports a lost workload as failed with app_lost_on_provider, and clears it afterwards', () => {
    const lost = agentStatusBlock(agent(), observed({ lost: true }), cfg, now).status;
    expect(lost).toMatchObject({
      status: 'failed',
      deployed: false,
      url: null,
      failureCode: 'app_lost_on_provider',
      failureMessage: LOST_MESSAGE,
      regionsReady: 0,
    });
    const restored = agent();
    restored.status = lost;
    const after = agentStatusBlock(restored, observed(), cfg, now).status;
    expect(after).not.toHaveProperty('failureCode');
    expect(after.status).toBe('running');
  });

  it('looks again just after the next scheduled run, or sooner for idleness, never under a second', () => {
    const hourly = agent({ schedule: '0 * * * *' });
    const { status, requeueAfter } = agentStatusBlock(hourly, observed(), cfg, now);
    expect(status.cronNextRunAt).toBe('2026-03-01T13:00:00.000Z');
    expect(requeueAfter).toBe(60 * 60_000 + 1000);
    expect(
      agentStatusBlock(hourly, observed({ requeueAfter: 120_000 }), cfg, now).requeueAfter,
    ).toBe(120_000);
    expect(agentStatusBlock(agent(), observed({ requeueAfter: 10 }), cfg, now).requeueAfter).toBe(
      1000,
    );
  });

  it('writes only a status that changed', () => {
    const a = agent();
    const { status } = agentStatusBlock(a, observed(), cfg, now);
    expect(statusChanged(a, status)).toBe(true);
    a.status = status;
    expect(statusChanged(a, agentStatusBlock(a, observed(), cfg, now).status)).toBe(false);
  });
});

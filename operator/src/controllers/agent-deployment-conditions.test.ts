import { describe, expect, it } from '@jest/globals';
import {
  CONDITION_REASON_PATTERN,
  DEPLOYMENT_STATES,
  type AgentDeployment,
  type AgentDeploymentStatus,
  type DeploymentState,
} from '../../../crds/src/index.js';
import { agentDeploymentResource } from '../../../test/factories/custom-resources.js';
import {
  deploymentBuilt,
  deploymentConditions,
  deploymentEvents,
  deploymentReady,
} from './agent-deployment-conditions.js';
import { withStatus } from './agent-deployment-decisions.js';

const t0 = new Date('2026-03-01T12:00:00Z');
const t1 = new Date('2026-03-01T12:01:00Z');
const t2 = new Date('2026-03-01T12:02:00Z');

function version(status?: AgentDeploymentStatus, run = false): AgentDeployment {
  const d = agentDeploymentResource('ns', 'a1', {
    metadata: { name: run ? 'r1' : 'd3', generation: 2 },
    spec: { version: 3, ephemeral: run },
    config: { agentType: 'service' },
    ...(status ? { status } : {}),
  });
  return d;
}

/** `d` with the status `changes` make, as the reconciler writes it at `now`. */
function advance(
  d: AgentDeployment,
  changes: AgentDeploymentStatus,
  now: Date,
  failure?: Parameters<typeof withStatus>[3],
) {
  return { ...d, status: withStatus(d, changes, now, failure) };
}

describe('deploymentReady', () => {
  it('names where a version stands, True only once active', () => {
    const reason = (status: AgentDeploymentStatus) => deploymentReady(version(), status);
    expect(reason({ state: 'queued', queuePosition: 2 })).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'Queued',
      message: 'Version 3 waits for a build slot (position 2).',
      observedGeneration: 2,
    });
    expect(reason({ state: 'building' }).reason).toBe('Building');
    expect(reason({ state: 'deploying' }).reason).toBe('Built');
    expect(reason({ state: 'active' })).toMatchObject({ status: 'True', reason: 'Active' });
    expect(reason({ state: 'superseded' }).reason).toBe('Superseded');
    expect(reason({ state: 'rolled_back' }).reason).toBe('RolledBack');
  });

  it('names why it failed, keeping a recorded reason when the reconciler does not know it', () => {
    const failed = { state: 'failed', errorMessage: 'Build failed: pip' } as const;
    expect(deploymentReady(version(), failed, 'BuildFailed')).toMatchObject({
      status: 'False',
      reason: 'BuildFailed',
      message: 'Build failed: pip',
    });
    expect(deploymentReady(version(), failed).reason).toBe('Failed');
    const recorded = version({
      state: 'failed',
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'Cancelled',
          message: '',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    });
    expect(deploymentReady(recorded, failed).reason).toBe('Cancelled');
  });

  it('of a run: Running, then Completed (True) or RunFailed', () => {
    const run = version(undefined, true);
    expect(deploymentReady(run, { state: 'deploying' }).reason).toBe('Running');
    expect(deploymentReady(run, { state: 'completed' })).toMatchObject({
      status: 'True',
      reason: 'Completed',
    });
    expect(deploymentReady(run, { state: 'failed' }, 'RunFailed').reason).toBe('RunFailed');
  });

  it('gives every state a reason the CRD accepts', () => {
    for (const state of DEPLOYMENT_STATES as readonly DeploymentState[]) {
      for (const run of [false, true]) {
        const ready = deploymentReady(version(undefined, run), { state });
        expect(ready.reason).toMatch(new RegExp(CONDITION_REASON_PATTERN));
      }
    }
  });
});

describe('deploymentBuilt', () => {
  it('is Unknown until the build ends, then True or False; a run has none', () => {
    expect(deploymentBuilt(version(), { state: 'queued' })).toMatchObject({
      type: 'Built',
      status: 'Unknown',
      reason: 'Queued',
    });
    expect(deploymentBuilt(version(), { state: 'building' })?.status).toBe('Unknown');
    expect(deploymentBuilt(version(), { state: 'active', builtAt: 't' })).toMatchObject({
      status: 'True',
      reason: 'BuildSucceeded',
    });
    expect(
      deploymentBuilt(version(), { state: 'failed', errorMessage: 'Cancelled: x' }, 'Cancelled'),
    ).toMatchObject({ status: 'False', reason: 'Cancelled', message: 'Cancelled: x' });
    expect(deploymentBuilt(version(undefined, true), { state: 'deploying' })).toBeNull();
  });
});

describe('conditions through a deploy', () => {
  it('move their transition time only when their status changes', () => {
    const queued = advance(version(), { state: 'queued', queuePosition: 1 }, t0);
    const building = advance(queued, { state: 'building', queuePosition: null }, t1);
    const built = advance(building, { state: 'deploying', builtAt: t1.toISOString() }, t2);
    const byType = (d: AgentDeployment) =>
      Object.fromEntries((d.status?.conditions ?? []).map((c) => [c.type, c]));
    // Ready stayed False from Queued to Built: its time is the first write's.
    expect(byType(built).Ready).toMatchObject({
      status: 'False',
      reason: 'Built',
      lastTransitionTime: '2026-03-01T12:00:00Z',
    });
    // Built went from Unknown to True at the third write.
    expect(byType(built).Built).toMatchObject({
      status: 'True',
      lastTransitionTime: '2026-03-01T12:02:00Z',
    });
    const active = advance(built, { state: 'active' }, t2);
    expect(byType(active).Ready).toMatchObject({
      status: 'True',
      lastTransitionTime: '2026-03-01T12:02:00Z',
      observedGeneration: 2,
    });
    expect(deploymentConditions(active, active.status!, t2)).toEqual(active.status?.conditions);
  });
});

describe('deploymentEvents', () => {
  it('records Queued, Building, Built and Active, each once', () => {
    const queued = advance(version(), { state: 'queued', queuePosition: 2 }, t0);
    expect(deploymentEvents(undefined, queued.status?.conditions)).toEqual([
      { type: 'Normal', reason: 'Queued', note: 'Version 3 waits for a build slot (position 2).' },
    ]);
    // A new queue position changes the message only: no Event.
    const nearer = advance(queued, { state: 'queued', queuePosition: 1 }, t1);
    expect(deploymentEvents(queued.status?.conditions, nearer.status?.conditions)).toEqual([]);
    let d = nearer;
    const reasons: string[] = [];
    for (const changes of [
      { state: 'building' },
      { state: 'deploying', builtAt: 't' },
      { state: 'active' },
    ] as const) {
      const next = advance(d, changes, t2);
      reasons.push(
        ...deploymentEvents(d.status?.conditions, next.status?.conditions).map((e) => e.reason),
      );
      d = next;
    }
    expect(reasons).toEqual(['Building', 'Built', 'Active']);
  });

  it('records a failure as a Warning, and a cancellation as Normal', () => {
    const building = advance(version(), { state: 'building' }, t0);
    const failed = advance(
      building,
      { state: 'failed', errorMessage: 'Build failed: pip' },
      t1,
      'BuildFailed',
    );
    expect(deploymentEvents(building.status?.conditions, failed.status?.conditions)).toEqual([
      { type: 'Warning', reason: 'BuildFailed', note: 'Build failed: pip' },
    ]);
    const cancelled = advance(
      building,
      { state: 'failed', errorMessage: 'Cancelled: x' },
      t1,
      'Cancelled',
    );
    expect(deploymentEvents(building.status?.conditions, cancelled.status?.conditions)).toEqual([
      { type: 'Normal', reason: 'Cancelled', note: 'Cancelled: x' },
    ]);
  });
});

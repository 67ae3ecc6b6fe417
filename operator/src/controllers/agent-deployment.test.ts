import { describe, expect, it } from '@jest/globals';
import {
  ANNOTATIONS,
  type AgentDeployment,
  type DeploymentState,
} from '../../../crds/src/index.js';
import { agentDeploymentResource } from '../../../test/factories/custom-resources.js';
import type { ServingStatus } from '../drivers/driver.js';
import {
  activeStatus,
  buildDecision,
  cancelledMessage,
  deployingDecision,
  finishedStatus,
  holdsNoBuildSlot,
  queueDecision,
  replacedBy,
  waitingForSlot,
  withStatus,
  workloadDecision,
} from './agent-deployment-decisions.js';
import { stateOf } from './views.js';

const now = new Date('2026-03-01T12:00:00Z');

/** Version `version` of agent a1, in `state` (none: not yet seen), created at second `createdAt`. */
function version(
  v: number,
  state?: DeploymentState,
  opts: {
    createdAt?: number;
    run?: boolean;
    job?: boolean;
    spec?: Partial<AgentDeployment['spec']>;
  } = {},
): AgentDeployment {
  return agentDeploymentResource('ns', 'a1', {
    metadata: {
      name: `${opts.run ? 'r' : 'd'}${v}`,
      creationTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, opts.createdAt ?? v)),
    },
    spec: { version: v, ephemeral: opts.run ?? false, ...opts.spec },
    config: { agentType: opts.job ? 'job' : 'service' },
    ...(state ? { status: { state } } : {}),
  });
}

const serving = (s: Partial<ServingStatus>): ServingStatus => ({
  exists: true,
  deploymentId: 'd2',
  desiredReplicas: 1,
  ready: false,
  failed: null,
  ...s,
});

describe('build slots', () => {
  it('a version that is queued or building holds its place; any other state, or a run, frees one', () => {
    expect(holdsNoBuildSlot(version(1, 'queued'))).toBe(false);
    expect(holdsNoBuildSlot(version(1))).toBe(false);
    expect(holdsNoBuildSlot(version(1, 'building'))).toBe(false);
    expect(holdsNoBuildSlot(version(1, 'active'))).toBe(true);
    expect(holdsNoBuildSlot(version(1, 'failed'))).toBe(true);
    expect(holdsNoBuildSlot(version(1, 'queued', { run: true }))).toBe(false);
  });

  it('lists the queued versions, not the queued runs, as waiting for a slot', () => {
    const waiting = waitingForSlot([
      version(1, 'active'),
      version(2),
      version(3, 'queued'),
      version(4, 'queued', { run: true }),
      version(5, 'building'),
    ]);
    expect(waiting.map((d) => d.metadata.name)).toEqual(['d2', 'd3']);
  });

  it('never counts a record a region change copied here, before its status is written, as waiting', () => {
    const imported = version(2);
    imported.metadata.annotations = { [ANNOTATIONS.importedState]: 'superseded' };
    expect(stateOf(imported)).toBe('superseded');
    expect(holdsNoBuildSlot(imported)).toBe(true);
    expect(waitingForSlot([version(1, 'active'), imported])).toEqual([]);
    // Its status, once written, is what counts.
    expect(stateOf({ ...imported, status: { state: 'failed' } })).toBe('failed');
  });
});

describe('queueDecision', () => {
  it('starts the oldest queued versions while slots are free, with the time it started', () => {
    const all = [version(1, 'queued', { createdAt: 5 }), version(2, 'queued', { createdAt: 1 })];
    expect(queueDecision(all[1]!, all, 1, now)).toEqual({
      start: true,
      status: { state: 'building', queuePosition: null, startedAt: '2026-03-01T12:00:00.000Z' },
    });
    expect(queueDecision(all[0]!, all, 1, now)).toEqual({
      start: false,
      queuePosition: 1,
      status: { state: 'queued', queuePosition: 1 },
    });
    expect(queueDecision(all[0]!, all, 2, now).start).toBe(true);
  });

  it('counts running builds against the slots, and ignores runs, cancelled and deleted versions', () => {
    const cancelled = version(2, 'queued', { spec: { cancellationRequested: true } });
    const deleted = version(3, 'queued');
    deleted.metadata.deletionTimestamp = new Date();
    const d = version(4, 'queued');
    const all = [
      version(1, 'building'),
      cancelled,
      deleted,
      version(9, 'queued', { run: true, createdAt: 0 }),
      d,
    ];
    expect(queueDecision(d, all, 2, now).start).toBe(true);
    expect(queueDecision(d, all, 1, now)).toMatchObject({ start: false, queuePosition: 1 });
  });

  it('writes no status while the position is the one recorded', () => {
    const d = version(2, 'queued');
    d.status = { state: 'queued', queuePosition: 2 };
    const all = [version(1, 'queued', { createdAt: 0 }), d];
    expect(queueDecision(d, all, 0, now)).toEqual({ start: false, queuePosition: 2, status: null });
    expect(queueDecision(d, [d], 0, now)).toEqual({
      start: false,
      queuePosition: 1,
      status: { state: 'queued', queuePosition: 1 },
    });
  });
});

describe('buildDecision', () => {
  it('restarts a missing build, fails a failed one with its message, and waits on one running', () => {
    expect(buildDecision({ phase: 'missing' }, now)).toEqual({ next: 'restart' });
    expect(buildDecision({ phase: 'failed', message: 'pip: no such package' }, now)).toEqual({
      next: 'fail',
      message: 'Build failed: pip: no such package',
      reason: 'BuildFailed',
    });
    expect(buildDecision({ phase: 'failed' }, now)).toEqual({
      next: 'fail',
      message: 'Build failed: unknown error',
      reason: 'BuildFailed',
    });
    expect(buildDecision({ phase: 'running' }, now)).toEqual({ next: 'wait' });
    expect(buildDecision({ phase: 'pending' }, now)).toEqual({ next: 'wait' });
  });

  it('moves a succeeded build to deploying, with when it was built and the image size', () => {
    expect(buildDecision({ phase: 'succeeded', imageSizeMb: 42 }, now)).toEqual({
      next: 'deploy',
      status: { state: 'deploying', builtAt: '2026-03-01T12:00:00.000Z', imageSizeMb: 42 },
    });
    expect(buildDecision({ phase: 'succeeded' }, now)).toEqual({
      next: 'deploy',
      status: { state: 'deploying', builtAt: '2026-03-01T12:00:00.000Z' },
    });
  });
});

describe('deployingDecision', () => {
  it('supersedes a version when a newer one is deploying or active, not when it failed', () => {
    const d = version(2, 'deploying');
    expect(deployingDecision(d, [d, version(3, 'deploying')])).toBe('supersede');
    expect(deployingDecision(d, [d, version(3, 'active')])).toBe('supersede');
    expect(deployingDecision(d, [d, version(3, 'failed')])).toBe('ask-workload');
    expect(deployingDecision(d, [d, version(1, 'active')])).toBe('ask-workload');
    // A run is not a version.
    expect(deployingDecision(d, [d, version(3, 'deploying', { run: true })])).toBe('ask-workload');
  });

  it('activates a job at once: it has no workload to wait for', () => {
    const job = version(2, 'deploying', { job: true });
    expect(deployingDecision(job, [job])).toBe('activate');
  });
});

describe('workloadDecision', () => {
  const d = version(2, 'deploying');

  it('activates the version once its workload is ready', () => {
    expect(workloadDecision(d, serving({ ready: true }))).toEqual({ next: 'activate' });
  });

  it('fails it when the rollout gave up, with the reason', () => {
    expect(workloadDecision(d, serving({ failed: 'crash loop' }))).toEqual({
      next: 'fail',
      message: 'The new version did not become healthy: crash loop',
      reason: 'RolloutFailed',
    });
  });

  it('waits while the workload is missing, rolling out, or runs another version', () => {
    expect(workloadDecision(d, serving({ exists: false }))).toEqual({ next: 'wait' });
    expect(workloadDecision(d, serving({ ready: false }))).toEqual({ next: 'wait' });
    expect(
      workloadDecision(d, serving({ deploymentId: 'd1', ready: true, failed: 'old' })),
    ).toEqual({ next: 'wait' });
  });
});

describe('activation', () => {
  it('marks a service version serving, a job not, and both redeployable', () => {
    expect(activeStatus(version(2), now)).toEqual({
      state: 'active',
      deployedAt: '2026-03-01T12:00:00.000Z',
      isServing: true,
      canRedeploy: true,
    });
    expect(activeStatus(version(2, undefined, { job: true }), now).isServing).toBe(false);
  });

  it('supersedes the versions active before, or rolls them back for a rollback', () => {
    const d = version(3, 'deploying');
    const siblings = [
      version(1, 'superseded'),
      version(2, 'active'),
      d,
      version(4, 'active', { run: true }),
    ];
    const replaced = replacedBy(d, siblings);
    expect(replaced.versions.map((s) => s.metadata.name)).toEqual(['d2']);
    expect(replaced.state).toBe('superseded');
    const rollback = version(3, 'deploying', { spec: { rollbackOfVersion: 1 } });
    expect(replacedBy(rollback, siblings).state).toBe('rolled_back');
  });
});

describe('finishing', () => {
  it('ends a version with the time, no queue position, not serving, and its error', () => {
    expect(finishedStatus('failed', 'Build failed: x', now)).toEqual({
      state: 'failed',
      finishedAt: '2026-03-01T12:00:00.000Z',
      queuePosition: null,
      isServing: false,
      errorMessage: 'Build failed: x',
    });
    expect(finishedStatus('superseded', null, now)).not.toHaveProperty('errorMessage');
  });

  it('says why a build was cancelled', () => {
    expect(
      cancelledMessage(version(1, 'building', { spec: { cancellationReason: 'too slow' } })),
    ).toBe('Cancelled: too slow');
    expect(cancelledMessage(version(1, 'building'))).toBe('Cancelled: cancelled by the user');
  });

  it('writes changes over the status the version has, at its generation', () => {
    const d = version(1, 'building');
    d.metadata.generation = 4;
    d.status = { state: 'building', startedAt: 't0', queuePosition: null };
    expect(withStatus(d, { state: 'deploying', builtAt: 't1' }, now)).toEqual({
      state: 'deploying',
      startedAt: 't0',
      queuePosition: null,
      builtAt: 't1',
      observedGeneration: 4,
      conditions: [
        expect.objectContaining({ type: 'Ready', reason: 'Built', observedGeneration: 4 }),
        expect.objectContaining({ type: 'Built', status: 'True', reason: 'BuildSucceeded' }),
      ],
    });
  });
});

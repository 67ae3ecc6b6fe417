import { describe, expect, it } from '@jest/globals';
import type { AgentDeployment, AgentDeploymentStatus } from '../../../crds/src/index.js';
import { agentDeploymentResource } from '../../../test/factories/custom-resources.js';
import { NO_ACTIVE_VERSION, runFinishedStatus, runProgress, runStart } from './run-decisions.js';

const now = new Date('2026-03-01T12:00:00Z');

function version(v: number, state: AgentDeploymentStatus['state']): AgentDeployment {
  return agentDeploymentResource('ns', 'a1', {
    metadata: { name: `d${v}` },
    spec: { version: v },
    status: { state },
  });
}

function run(status?: AgentDeploymentStatus): AgentDeployment {
  return agentDeploymentResource('ns', 'a1', {
    metadata: { name: 'r1' },
    spec: { version: 2, ephemeral: true, triggerSource: 'manual' },
    ...(status ? { status } : {}),
  });
}

describe('runStart', () => {
  it('fails a run whose agent has no active version', () => {
    expect(runStart(run(), [version(1, 'failed'), run()], now)).toEqual({
      next: 'fail',
      message: NO_ACTIVE_VERSION,
    });
  });

  it('starts a queued run on the active version, recording when', () => {
    const start = runStart(run(), [version(1, 'superseded'), version(2, 'active')], now);
    expect(start).toMatchObject({
      next: 'start',
      status: { state: 'deploying', startedAt: '2026-03-01T12:00:00.000Z', queuePosition: null },
    });
    expect(start.next !== 'fail' && start.serving.metadata.name).toBe('d2');
  });

  it('watches a run already deploying', () => {
    const start = runStart(run({ state: 'deploying' }), [version(2, 'active')], now);
    expect(start.next).toBe('watch');
  });
});

describe('runProgress', () => {
  it('restarts a machine that is gone', () => {
    expect(runProgress(run({ state: 'deploying' }), { phase: 'missing' })).toEqual({
      next: 'restart',
    });
  });

  it('finishes a run as its machine ended, with the machine’s message', () => {
    expect(runProgress(run({ state: 'deploying' }), { phase: 'succeeded' })).toEqual({
      next: 'finish',
      state: 'completed',
      message: null,
    });
    expect(
      runProgress(run({ state: 'deploying' }), { phase: 'failed', message: 'exit 1' }),
    ).toEqual({ next: 'finish', state: 'failed', message: 'exit 1' });
  });

  it('records when the machine started, once', () => {
    const task = { phase: 'running' as const, startedAt: '2026-03-01T11:59:00Z' };
    expect(runProgress(run({ state: 'deploying' }), task)).toEqual({
      next: 'wait',
      status: { machineStartedAt: '2026-03-01T11:59:00Z' },
    });
    const recorded = run({ state: 'deploying', machineStartedAt: '2026-03-01T11:59:00Z' });
    expect(runProgress(recorded, task)).toEqual({ next: 'wait', status: null });
    expect(runProgress(run({ state: 'deploying' }), { phase: 'pending' })).toEqual({
      next: 'wait',
      status: null,
    });
  });
});

describe('runFinishedStatus', () => {
  it('takes the machine’s times and counts the whole seconds it ran', () => {
    const status = runFinishedStatus(run({ state: 'deploying' }), 'completed', null, now, {
      startedAt: '2026-03-01T11:59:00Z',
      finishedAt: '2026-03-01T11:59:41.600Z',
    });
    expect(status).toEqual({
      state: 'completed',
      finishedAt: '2026-03-01T12:00:00.000Z',
      machineStartedAt: '2026-03-01T11:59:00Z',
      machineStoppedAt: '2026-03-01T11:59:41.600Z',
      durationSeconds: 42,
    });
  });

  it('prefers the start already recorded, and stops the clock now when the machine says nothing', () => {
    const recorded = run({ state: 'deploying', machineStartedAt: '2026-03-01T11:58:00Z' });
    expect(runFinishedStatus(recorded, 'failed', 'exit 2', now)).toEqual({
      state: 'failed',
      finishedAt: '2026-03-01T12:00:00.000Z',
      machineStartedAt: '2026-03-01T11:58:00Z',
      machineStoppedAt: '2026-03-01T12:00:00.000Z',
      durationSeconds: 120,
      errorMessage: 'exit 2',
    });
  });

  it('has no times nor duration for a run whose machine never started', () => {
    expect(runFinishedStatus(run(), 'failed', NO_ACTIVE_VERSION, now)).toMatchObject({
      machineStartedAt: null,
      machineStoppedAt: null,
      durationSeconds: null,
    });
  });
});

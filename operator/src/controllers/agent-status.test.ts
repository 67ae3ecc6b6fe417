import { describe, expect, it } from '@jest/globals';
import { ANNOTATIONS, type Agent, type AgentDeployment } from '../../../crds/src/index.js';
import {
  agentDeploymentResource,
  agentResource,
} from '../../../test/factories/custom-resources.js';
import {
  agentStatusFor,
  agentUrl,
  cronFields,
  cronLastRun,
  usagePaused,
  versionsOf,
} from './agent-status.js';

function agent(spec: Partial<Agent['spec']> = {}): Agent {
  return agentResource('ns', { addressLabel: 'hello-abc123', ...spec }, { name: 'a1' });
}

function deployment(
  version: number,
  state: string | undefined,
  ephemeral = false,
): AgentDeployment {
  return agentDeploymentResource('ns', 'a1', {
    metadata: { name: `d${version}` },
    spec: { version, ephemeral },
    ...(state ? { status: { state: state as never } } : {}),
  });
}

describe('versionsOf', () => {
  it('finds the active, the rolling and the latest version, ignoring runs', () => {
    const v = versionsOf([
      deployment(1, 'superseded'),
      deployment(2, 'active'),
      deployment(3, 'deploying'),
      deployment(9, 'active', true),
    ]);
    expect([v.active?.spec.version, v.rolling?.spec.version, v.latest?.spec.version]).toEqual([
      2, 3, 3,
    ]);
  });
});

describe('agentStatusFor', () => {
  const s = (deployments: AgentDeployment[], spec: Partial<Agent['spec']> = {}, lost = false) =>
    agentStatusFor(agent(spec), versionsOf(deployments), lost);

  it('follows the deployments', () => {
    expect(s([])).toBe('pending');
    expect(s([deployment(1, undefined)])).toBe('building');
    expect(s([deployment(1, 'building')])).toBe('building');
    expect(s([deployment(1, 'deploying')])).toBe('deploying');
    expect(s([deployment(1, 'failed')])).toBe('failed');
    expect(s([deployment(1, 'active')])).toBe('running');
    expect(s([deployment(1, 'active'), deployment(2, 'deploying')])).toBe('deploying');
    // A failed newer version leaves the active one serving.
    expect(s([deployment(1, 'active'), deployment(2, 'failed')])).toBe('running');
  });

  it('follows the desired state and a lost workload', () => {
    expect(s([deployment(1, 'active')], { desiredState: 'paused' })).toBe('paused');
    expect(s([deployment(1, 'active')], { desiredState: 'archived' })).toBe('archived');
    expect(s([deployment(1, 'active')], {}, true)).toBe('failed');
  });

  it('is usage_paused while the API server marks the account over a usage limit', () => {
    const marked = agent();
    marked.metadata.annotations = { [ANNOTATIONS.usagePaused]: 'edge_requests' };
    const active = versionsOf([deployment(1, 'active')]);
    expect(agentStatusFor(marked, active, false)).toBe('usage_paused');
    // A stop by its owner, an archive or a lost workload say so first.
    marked.spec.desiredState = 'paused';
    expect(agentStatusFor(marked, active, false)).toBe('paused');
    marked.spec.desiredState = 'running';
    expect(agentStatusFor(marked, active, true)).toBe('failed');
    expect(usagePaused(marked)).toBe(true);
    expect(usagePaused(agent())).toBe(false);
  });
});

describe('agentUrl', () => {
  it('is set only for a deployed service with an address', () => {
    expect(agentUrl(agent(), true, 'https', 'agents.example')).toBe(
      'https://hello-abc123.agents.example',
    );
    expect(agentUrl(agent(), false, 'https', 'agents.example')).toBeNull();
    expect(agentUrl(agent({ agentType: 'job' }), true, 'https', 'agents.example')).toBeNull();
  });
});

describe('cronFields', () => {
  const now = new Date('2026-01-01T10:03:00Z');

  it('has no next run without a schedule or while paused', () => {
    expect(cronFields(agent(), undefined, now)).toEqual({
      cronNextRunAt: null,
      cronObservedSchedule: null,
    });
    expect(
      cronFields(agent({ schedule: '*/10 * * * *', schedulePaused: true }), undefined, now)
        .cronNextRunAt,
    ).toBeNull();
  });

  it('computes the next run from now for a new expression', () => {
    expect(cronFields(agent({ schedule: '*/10 * * * *' }), undefined, now)).toEqual({
      cronNextRunAt: '2026-01-01T10:10:00.000Z',
      cronObservedSchedule: '*/10 * * * *',
    });
    const previous = {
      cronNextRunAt: '2026-01-01T11:00:00.000Z',
      cronObservedSchedule: '0 * * * *',
    };
    expect(cronFields(agent({ schedule: '*/10 * * * *' }), previous, now).cronNextRunAt).toBe(
      '2026-01-01T10:10:00.000Z',
    );
  });

  it('does not move the next run for the same expression', () => {
    const previous = {
      cronNextRunAt: '2026-01-01T11:00:00.000Z',
      cronObservedSchedule: '0 * * * *',
    };
    expect(cronFields(agent({ schedule: '0 * * * *' }), previous, now).cronNextRunAt).toBe(
      '2026-01-01T11:00:00.000Z',
    );
  });

  it('counts from the resume after a pause, never backfilling', () => {
    const spec = { schedule: '*/10 * * * *', scheduleResumedAt: '2026-01-01T10:01:00Z' };
    const pausedBefore = { cronNextRunAt: null, cronObservedSchedule: '*/10 * * * *' };
    expect(cronFields(agent(spec), pausedBefore, now).cronNextRunAt).toBe(
      '2026-01-01T10:10:00.000Z',
    );
  });

  it('moves on once the stored run has passed', () => {
    const previous = {
      cronNextRunAt: '2026-01-01T10:00:00.000Z',
      cronObservedSchedule: '*/10 * * * *',
    };
    expect(cronFields(agent({ schedule: '*/10 * * * *' }), previous, now).cronNextRunAt).toBe(
      '2026-01-01T10:10:00.000Z',
    );
  });
});

describe('cronLastRun', () => {
  const run = (
    name: string,
    created: string,
    trigger: 'cron' | 'manual',
    status?: AgentDeployment['status'],
  ): AgentDeployment => ({
    ...deployment(1, undefined, true),
    metadata: { name, creationTimestamp: created as unknown as Date },
    spec: { ...deployment(1, undefined, true).spec, triggerSource: trigger },
    ...(status ? { status } : {}),
  });

  it('is null before any scheduled run, and ignores manual runs and versions', () => {
    const manual = run('m', '2026-01-01T10:00:00Z', 'manual', { state: 'completed' });
    expect(cronLastRun([deployment(1, 'active'), manual], undefined)).toEqual({
      cronLastRunAt: null,
      cronLastStatus: null,
      cronLastReason: null,
    });
  });

  it('follows the newest scheduled run: its firing time, state and failure', () => {
    const runs = [
      run('a', '2026-01-01T10:00:00Z', 'cron', { state: 'completed' }),
      run('b', '2026-01-01T10:05:00Z', 'cron', { state: 'failed', errorMessage: 'exited with 2' }),
      run('c', '2026-01-01T10:07:00Z', 'manual', { state: 'completed' }),
    ];
    expect(cronLastRun(runs, undefined)).toEqual({
      cronLastRunAt: '2026-01-01T10:05:00.000Z',
      cronLastStatus: 'failed',
      cronLastReason: 'exited with 2',
    });
    const started = run('d', '2026-01-01T10:10:00Z', 'cron');
    expect(cronLastRun([...runs, started], undefined)).toEqual({
      cronLastRunAt: '2026-01-01T10:10:00.000Z',
      cronLastStatus: 'queued',
      cronLastReason: null,
    });
  });

  it('keeps what it recorded when the runs it read are gone', () => {
    const recorded = {
      cronLastRunAt: '2026-01-01T10:05:00.000Z',
      cronLastStatus: 'completed',
      cronLastReason: null,
    };
    expect(cronLastRun([], recorded)).toEqual(recorded);
    const older = run('a', '2026-01-01T10:00:00Z', 'cron', { state: 'failed' });
    expect(cronLastRun([older], recorded)).toEqual(recorded);
  });
});

import { describe, expect, it } from '@jest/globals';
import type { AgentDeployment } from '../../../crds/src/index.js';
import { agentDeploymentResource } from '../../../test/factories/custom-resources.js';
import { releasableBuilds } from './build-retention.js';

function deployment(
  version: number,
  state: string,
  opts: { built?: boolean; run?: boolean } = {},
): AgentDeployment {
  return agentDeploymentResource('ns', 'a1', {
    metadata: { name: `${opts.run ? 'r' : 'd'}${version}` },
    spec: { version, ephemeral: opts.run ?? false },
    status: {
      state: state as never,
      ...((opts.built ?? !opts.run) ? { builtAt: '2026-01-01T00:00:00Z' } : {}),
    },
  });
}

const names = (ds: AgentDeployment[]) => ds.map((d) => d.metadata.name).sort();

describe('releasableBuilds', () => {
  it('keeps the three most recent built versions and releases the older superseded ones', () => {
    const ds = [1, 2, 3, 4, 5].map((v) => deployment(v, v === 5 ? 'active' : 'superseded'));
    expect(names(releasableBuilds(ds))).toEqual(['d1', 'd2']);
  });

  it('releases a failed build at once, but counts a built version that failed to start among the kept', () => {
    const ds = [
      deployment(1, 'superseded'),
      deployment(2, 'active'),
      deployment(3, 'failed', { built: false }),
      deployment(4, 'failed', { built: true }),
      deployment(5, 'superseded'),
    ];
    // Built, newest first: 5, 4, 2 are kept; 1 is beyond them; 3 never built.
    expect(names(releasableBuilds(ds))).toEqual(['d1', 'd3']);
  });

  it('never releases a version that is active, rolling out, building or queued', () => {
    const ds = [
      deployment(1, 'active'),
      deployment(2, 'superseded'),
      deployment(3, 'superseded'),
      deployment(4, 'superseded'),
      deployment(5, 'deploying'),
      deployment(6, 'building', { built: false }),
      deployment(7, 'queued', { built: false }),
    ];
    expect(names(releasableBuilds(ds))).toEqual(['d2']);
  });

  it('releases a rolled-back version beyond the kept ones', () => {
    const ds = [
      deployment(1, 'rolled_back'),
      deployment(2, 'superseded'),
      deployment(3, 'superseded'),
      deployment(4, 'superseded'),
      deployment(5, 'active'),
    ];
    expect(names(releasableBuilds(ds))).toEqual(['d1', 'd2']);
  });

  it('keeps every built version while a run is unfinished, and never lists runs themselves', () => {
    const versions = [1, 2, 3, 4, 5].map((v) => deployment(v, v === 5 ? 'active' : 'superseded'));
    const failedBuild = deployment(6, 'failed', { built: false });
    expect(
      names(
        releasableBuilds([...versions, failedBuild, deployment(9, 'deploying', { run: true })]),
      ),
    ).toEqual(['d6']);
    expect(
      names(releasableBuilds([...versions, deployment(9, 'completed', { run: true })])),
    ).toEqual(['d1', 'd2']);
  });
});

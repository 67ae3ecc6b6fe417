import { describe, expect, it } from '@jest/globals';
import type { AgentDeployment } from '../../../crds/src/index.js';
import { agentDeploymentResource } from '../../../test/factories/custom-resources.js';
import { retiredDeploymentKeys } from './deployment-keys.js';

const NOW = Date.parse('2026-05-01T12:00:00Z');
const GRACE = 60_000;
const ago = (ms: number) => new Date(NOW - ms).toISOString();

function deployment(
  name: string,
  version: number,
  state: string,
  extra: { ephemeral?: boolean; finishedAt?: string; deleting?: boolean } = {},
): AgentDeployment {
  return agentDeploymentResource('ns', 'agent', {
    metadata: { name, ...(extra.deleting ? { deletionTimestamp: ago(1000) } : {}) },
    spec: { version, ephemeral: extra.ephemeral ?? false },
    config: { runtime: 'python3.12', agentType: 'job' },
    status: { state: state as never, finishedAt: extra.finishedAt ?? null },
  });
}

const key = (deploymentId: string) => ({ keyId: `key-${deploymentId}`, deploymentId });

describe('retiredDeploymentKeys', () => {
  it('keeps the keys of the active version and of versions still on their way', () => {
    const deployments = ['queued', 'building', 'deploying', 'active'].map((s, i) =>
      deployment(`d${i}`, i + 1, s),
    );
    expect(
      retiredDeploymentKeys(
        deployments.map((d) => key(d.metadata.name ?? '')),
        deployments,
        NOW,
        GRACE,
      ),
    ).toEqual({
      revoke: [],
      missing: [],
      recheckAt: null,
    });
  });

  it.each(['superseded', 'rolled_back', 'failed'])(
    'revokes the key of a %s version once its pods had their grace',
    (state) => {
      const deployments = [
        deployment('old', 1, state, { finishedAt: ago(GRACE + 1) }),
        deployment('new', 2, 'active'),
      ];
      expect(
        retiredDeploymentKeys([key('old'), key('new')], deployments, NOW, GRACE).revoke,
      ).toEqual(['key-old']);
    },
  );

  it('keeps a retired key through the shutdown grace and says when to look again', () => {
    const deployments = [
      deployment('old', 1, 'superseded', { finishedAt: ago(10_000) }),
      deployment('older', 0, 'superseded', { finishedAt: ago(50_000) }),
    ];
    expect(retiredDeploymentKeys([key('old'), key('older')], deployments, NOW, GRACE)).toEqual({
      revoke: [],
      missing: [],
      recheckAt: NOW + 10_000,
    });
  });

  it("keeps a superseded version's key while a run of that version is in flight", () => {
    const deployments = [
      deployment('old', 1, 'superseded', { finishedAt: ago(GRACE * 10) }),
      deployment('new', 2, 'active'),
      deployment('run-of-old', 1, 'deploying', { ephemeral: true }),
      deployment('done-run-of-new', 2, 'completed', { ephemeral: true }),
    ];
    expect(retiredDeploymentKeys([key('old')], deployments, NOW, GRACE).revoke).toEqual([]);
  });

  it('revokes it once the runs of that version are over', () => {
    const deployments = [
      deployment('old', 1, 'superseded', { finishedAt: ago(GRACE * 10) }),
      deployment('run-of-old', 1, 'completed', { ephemeral: true }),
      deployment('failed-run-of-old', 1, 'failed', { ephemeral: true }),
      deployment('run-of-new', 2, 'queued', { ephemeral: true }),
    ];
    expect(retiredDeploymentKeys([key('old')], deployments, NOW, GRACE).revoke).toEqual([
      'key-old',
    ]);
  });

  it('revokes the key of a deployment being deleted, whatever its state', () => {
    const deployments = [deployment('d', 1, 'active', { deleting: true })];
    expect(retiredDeploymentKeys([key('d')], deployments, NOW, GRACE).revoke).toEqual(['key-d']);
  });

  it('reports keys whose deployment it cannot see, for a live read to confirm', () => {
    const verdicts = retiredDeploymentKeys([key('gone')], [], NOW, GRACE);
    expect(verdicts).toEqual({ revoke: [], missing: [key('gone')], recheckAt: null });
  });
});

import { describe, expect, it } from '@jest/globals';
import { ARCHIVES_KEPT, type AgentDeployment } from '../../../crds/src/index.js';
import { agentDeploymentResource } from '../../../test/factories/custom-resources.js';
import { archivesToDelete } from './archive-retention.js';

/** Version `version` of one agent with `archiveId`, in `state` (built unless it failed in the build). */
function version(
  n: number,
  archiveId: string | null,
  status: AgentDeployment['status'] = { state: 'active', builtAt: 't', finishedAt: 't' },
): AgentDeployment {
  const d = agentDeploymentResource('svc-live-a', 'agent');
  d.spec.version = n;
  d.spec.archiveId = archiveId;
  d.status = status;
  return d;
}

describe('archivesToDelete', () => {
  it(`keeps the archives of the ${ARCHIVES_KEPT} newest built versions and deletes older ones`, () => {
    const all = [1, 2, 3, 4, 5].map((n) => version(n, `a${n}`));
    expect(archivesToDelete(all).sort()).toEqual(['a1', 'a2']);
  });

  it('keeps an archive a newer rollback shares, and those of versions still building', () => {
    const all = [
      version(1, 'a1'),
      version(2, 'a2'),
      version(3, 'a3'),
      version(4, 'a1'),
      version(5, 'a5', { state: 'building' }),
      version(6, 'a6', { state: 'queued' }),
    ];
    // Built: 4 (a1), 3 (a3), 2 (a2) kept; 1 shares a1 with 4. Building and queued keep theirs.
    expect(archivesToDelete(all)).toEqual([]);
    const more = [...all, version(7, 'a7')];
    expect(archivesToDelete(more)).toEqual(['a2']);
  });

  it('ignores runs and deployments without an archive', () => {
    const run = version(9, null);
    run.spec.ephemeral = true;
    expect(archivesToDelete([run, version(1, null)])).toEqual([]);
  });
});

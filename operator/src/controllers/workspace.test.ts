import { describe, expect, it } from '@jest/globals';
import type { Agent, Workspace } from '../../../crds/src/index.js';
import { agentResource, workspaceResource } from '../../../test/factories/custom-resources.js';
import { workspaceStatus } from './workspace.js';

const member = (workspaceName: string | undefined): Agent => agentResource('ns', { workspaceName });

function research(status?: Workspace['status']): Workspace {
  const workspace = workspaceResource('ns', 'research');
  workspace.metadata.generation = 2;
  if (status) workspace.status = status;
  return workspace;
}

describe('workspaceStatus', () => {
  it('counts the agents that declare the workspace, not those of others or being deleted', () => {
    const leaving = member('research');
    leaving.metadata.deletionTimestamp = new Date();
    const agents = [
      member('research'),
      member('research'),
      member('other'),
      member(undefined),
      leaving,
    ];
    expect(workspaceStatus(research(), agents)).toEqual({ agentCount: 2, observedGeneration: 2 });
  });

  it('keeps the other status fields, and writes nothing when count and generation are current', () => {
    const agents = [member('research')];
    expect(workspaceStatus(research({ agentCount: 1, observedGeneration: 2 }), agents)).toBeNull();
    expect(workspaceStatus(research({ agentCount: 1, observedGeneration: 1 }), agents)).toEqual({
      agentCount: 1,
      observedGeneration: 2,
    });
    const conditions = [
      {
        type: 'Ready',
        status: 'True' as const,
        reason: 'Ready',
        message: '',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ];
    expect(
      workspaceStatus(research({ agentCount: 3, observedGeneration: 2, conditions }), agents),
    ).toEqual({ agentCount: 1, observedGeneration: 2, conditions });
  });
});

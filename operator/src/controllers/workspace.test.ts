import { describe, expect, it } from '@jest/globals';
import type { Agent, Workspace } from '../../../crds/src/index.js';
import { agentResource, workspaceResource } from '../../../test/factories/custom-resources.js';
import { workspaceEvents, workspaceStatus } from './workspace-decisions.js';

const member = (workspaceName: string | undefined): Agent => agentResource('ns', { workspaceName });
const t0 = new Date('2026-01-01T00:00:00Z');
const t1 = new Date('2026-01-01T00:05:00Z');

function research(status?: Workspace['status']): Workspace {
  const workspace = workspaceResource('ns', 'research');
  workspace.metadata.generation = 2;
  if (status) workspace.status = status;
  return workspace;
}

const ready = (message: string, observedGeneration = 2) => ({
  type: 'Ready',
  status: 'True' as const,
  reason: 'Ready',
  message,
  observedGeneration,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

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
    expect(workspaceStatus(research(), agents, t0)).toEqual({
      agentCount: 2,
      observedGeneration: 2,
      conditions: [ready('The workspace has 2 agents.')],
    });
  });

  it('writes nothing when count, condition and generation are current', () => {
    const agents = [member('research')];
    const current = {
      agentCount: 1,
      observedGeneration: 2,
      conditions: [ready('The workspace has 1 agent.')],
    };
    expect(workspaceStatus(research(current), agents, t1)).toBeNull();
  });

  it('keeps the transition time of Ready while it stays True, and moves its generation', () => {
    const agents = [member('research')];
    const before = {
      agentCount: 3,
      observedGeneration: 1,
      conditions: [ready('The workspace has 3 agents.', 1)],
    };
    expect(workspaceStatus(research(before), agents, t1)).toEqual({
      agentCount: 1,
      observedGeneration: 2,
      conditions: [ready('The workspace has 1 agent.')],
    });
  });
});

describe('workspaceEvents', () => {
  it('records Ready when the workspace first becomes ready, and nothing for a new count', () => {
    const first = workspaceStatus(research(), [], t0)!;
    expect(workspaceEvents(undefined, first)).toEqual([
      { type: 'Normal', reason: 'Ready', note: 'The workspace has 0 agents.' },
    ]);
    const second = workspaceStatus(research(first), [member('research')], t1)!;
    expect(second.agentCount).toBe(1);
    expect(workspaceEvents(first, second)).toEqual([]);
  });
});

import { describe, expect, it } from '@jest/globals';
import type { Agent, AgentDeployment } from '../../crds/src/index.js';
import { finishedTaskEvents, usageOwner } from './usage-reporter.js';

const agent = {
  metadata: { name: 'agent-1', namespace: 'svc-test-acct-1' },
  spec: { userId: 'acct-1' },
} as unknown as Agent;
const run = {
  metadata: { name: 'run-1', namespace: 'svc-test-acct-1' },
  spec: { config: { memoryMb: 512 } },
} as unknown as AgentDeployment;

describe('usageOwner', () => {
  it("names the agent's account, environment (from its namespace) and id", () => {
    expect(usageOwner(agent)).toEqual({
      account_id: 'acct-1',
      environment: 'test',
      agent_id: 'agent-1',
    });
  });
});

describe('finishedTaskEvents', () => {
  const start = '2026-01-01T00:00:00.000Z';
  const stop = '2026-01-01T00:00:02.500Z';

  it('reports a run and the compute of its machine, with stable ids and the memory', () => {
    const events = finishedTaskEvents(agent, run, 'run', start, stop);
    expect(events.map((e) => [e.id, e.kind, e.memory_mb])).toEqual([
      ['run:run-1', 'run', undefined],
      ['compute:run:run-1', 'compute', 512],
    ]);
    expect(events.every((e) => e.started_at === start && e.ended_at === stop)).toBe(true);
  });

  it('reports a build alone', () => {
    expect(finishedTaskEvents(agent, run, 'build', start, stop).map((e) => e.id)).toEqual([
      'build:run-1',
    ]);
  });

  it('reports nothing for a task whose machine never started', () => {
    expect(finishedTaskEvents(agent, run, 'run', null, stop)).toEqual([]);
    expect(finishedTaskEvents(agent, run, 'build', start, undefined)).toEqual([]);
  });
});

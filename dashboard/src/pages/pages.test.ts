import { describe, expect, it } from '@jest/globals';
import type { Deployment } from '../api/types.js';
import { latestByAgent } from './latest-deployments.js';
import { svcYamlSettings } from './svc-yaml.js';

const dep = (
  agent_id: string,
  version: number,
  state: string,
  is_ephemeral = false,
): Deployment => ({
  id: `${agent_id}-${version}`,
  agent_id,
  version,
  state,
  is_ephemeral,
  queue_position: null,
  created_at: '',
  error_message: null,
});

describe('latestByAgent', () => {
  it('keeps the highest version of each agent and leaves runs out', () => {
    const latest = latestByAgent([
      dep('a', 3, 'completed', true),
      dep('a', 2, 'active'),
      dep('a', 1, 'superseded'),
      dep('b', 1, 'failed'),
    ]);
    expect(latest.get('a')?.state).toBe('active');
    expect(latest.get('b')?.version).toBe(1);
  });
});

describe('svcYamlSettings', () => {
  it('reads the top-level runtime and type', () => {
    expect(
      svcYamlSettings('# c\nruntime: python3.11\ntype: "job"  # one-shot\n  runtime: nested\n'),
    ).toEqual({
      runtime: 'python3.11',
      type: 'job',
    });
    expect(svcYamlSettings('name: x\n')).toEqual({});
  });
});

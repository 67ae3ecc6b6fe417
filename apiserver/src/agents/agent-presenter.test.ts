import { describe, expect, it } from '@jest/globals';
import { agentResource } from '../../../test/factories/custom-resources.js';
import { presentAgent, presentCachedAgent } from './agent-presenter.js';

describe('presentCachedAgent', () => {
  it('makes the record once per object, and a new one for the next version of the agent', () => {
    const agent = agentResource('ns', { name: 'first' });
    const record = presentCachedAgent(agent);
    expect(record).toEqual(presentAgent(agent));
    expect(presentCachedAgent(agent)).toBe(record);
    // The cache holds a new object for a new version: its record is made afresh.
    const next = structuredClone(agent);
    next.spec.description = 'changed';
    expect(presentCachedAgent(next).description).toBe('changed');
    expect(presentCachedAgent(agent).description).toBe(record.description);
  });
});

import { describe, expect, it } from '@jest/globals';
import { agentResource } from '../../../test/factories/custom-resources.js';
import { cachedAgentJson, presentAgent } from './agent-presenter.js';

describe('cachedAgentJson', () => {
  it('makes the text once per object, and anew for the next version of the agent', () => {
    const agent = agentResource('ns', { name: 'first' });
    const json = cachedAgentJson(agent);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(presentAgent(agent))));
    expect(cachedAgentJson(agent)).toBe(json);
    // The cache holds a new object for a new version: its text is made afresh.
    const next = structuredClone(agent);
    next.spec.description = 'changed';
    expect((JSON.parse(cachedAgentJson(next)) as { description: string }).description).toBe(
      'changed',
    );
    expect(cachedAgentJson(agent)).toBe(json);
  });
});

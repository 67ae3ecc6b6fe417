import { describe, expect, it } from '@jest/globals';
import { addressLabelOf } from './address.js';

describe('addressLabelOf', () => {
  it('reads the label of an agent address, with or without a port', () => {
    expect(addressLabelOf('hello-abc123.agents.localhost', 'agents.localhost')).toBe(
      'hello-abc123',
    );
    expect(addressLabelOf('Hello-ABC123.Agents.Localhost:8002', 'agents.localhost')).toBe(
      'hello-abc123',
    );
    expect(addressLabelOf('my-agent-x1y2z3.agents.localhost.', 'agents.localhost')).toBe(
      'my-agent-x1y2z3',
    );
  });

  it('refuses hosts that are not agent addresses', () => {
    for (const host of [
      undefined,
      '',
      'agents.localhost',
      'hello.agents.localhost',
      'hello-abc12.agents.localhost',
      'a.b-abc123.agents.localhost',
      'hello-abc123.other.test',
      'hello--abc123.agents.localhost',
    ]) {
      expect(addressLabelOf(host, 'agents.localhost')).toBeNull();
    }
  });
});

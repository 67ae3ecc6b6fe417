import { describe, expect, it } from '@jest/globals';
import { ANNOTATIONS, type Agent } from '../../../crds/src/index.js';
import { agentResource } from '../../../test/factories/custom-resources.js';
import { servingCopy } from './regional-agent-index.js';

/** A copy of one agent in `region`, serving at `endpoint` or not, drained or not. */
function copy(region: string, opts: { endpoint?: string; draining?: boolean } = {}): Agent {
  const agent = agentResource('ns', { name: 'svc' }, { name: 'a1', uid: `uid-${region}` });
  if (opts.draining) agent.metadata.annotations = { [ANNOTATIONS.draining]: 'op-1' };
  agent.status = { status: 'running', deployed: true, endpoint: opts.endpoint ?? null };
  return agent;
}

describe('servingCopy', () => {
  it('answers the one copy of an agent in one region', () => {
    const only = copy('local', { endpoint: '127.0.0.1:1' });
    expect(servingCopy([only])).toBe(only);
    expect(servingCopy([])).toBeUndefined();
  });

  it('prefers the first copy in region order that serves', () => {
    const building = copy('local');
    const serving = copy('region-b', { endpoint: '127.0.0.1:2' });
    expect(servingCopy([building, serving])).toBe(serving);
    const alsoServing = copy('local', { endpoint: '127.0.0.1:1' });
    expect(servingCopy([alsoServing, serving])).toBe(alsoServing);
  });

  it('leaves a copy being drained by a region change while another is kept', () => {
    const draining = copy('local', { endpoint: '127.0.0.1:1', draining: true });
    const kept = copy('region-b', { endpoint: '127.0.0.1:2' });
    expect(servingCopy([draining, kept])).toBe(kept);
    // Kept but not serving yet (scaled to zero): still the one to wake.
    const idle = copy('region-b');
    expect(servingCopy([draining, idle])).toBe(idle);
    // Nothing else left: the drained copy answers until it is gone.
    expect(servingCopy([draining])).toBe(draining);
  });
});

import { describe, expect, it } from '@jest/globals';
import { matchesLabelSelector, parseLabelSelector } from './label-selector.js';

describe('label selectors', () => {
  const labels = { 'svc.dev/agent-id': 'a1', tier: 'free' };

  it('evaluates equality, inequality and existence as Kubernetes does', () => {
    const match = (s: string) => matchesLabelSelector(labels, parseLabelSelector(s)!);
    expect(match('svc.dev/agent-id=a1')).toBe(true);
    expect(match('svc.dev/agent-id==a1,tier=free')).toBe(true);
    expect(match('svc.dev/agent-id=a2')).toBe(false);
    expect(match('tier!=paid')).toBe(true);
    expect(match('missing!=x')).toBe(true);
    expect(match('tier')).toBe(true);
    expect(match('!tier')).toBe(false);
    expect(match('!missing')).toBe(true);
    expect(match('')).toBe(true);
    expect(matchesLabelSelector(undefined, parseLabelSelector('tier=free')!)).toBe(false);
  });

  it('leaves set-based selectors to the API', () => {
    expect(parseLabelSelector('tier in (free,paid)')).toBeNull();
    expect(parseLabelSelector('!tier=free')).toBeNull();
  });
});

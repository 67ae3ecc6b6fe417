import { describe, expect, it } from '@jest/globals';
import type { Condition } from '../../../crds/src/index.js';
import { eventOf, transitionOf } from './transitions.js';

const c = (status: Condition['status'], reason: string, message = ''): Condition => ({
  type: 'Ready',
  status,
  reason,
  message,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

describe('transitionOf', () => {
  it('is a transition when the condition appears, or its status or reason changes', () => {
    expect(transitionOf(undefined, [c('False', 'Queued')], 'Ready')).toEqual({
      from: undefined,
      to: c('False', 'Queued'),
    });
    expect(transitionOf([c('False', 'Queued')], [c('False', 'Building')], 'Ready')?.to.reason).toBe(
      'Building',
    );
    expect(transitionOf([c('False', 'Active')], [c('True', 'Active')], 'Ready')).not.toBeNull();
  });

  it('is none when only the message changes, the condition is absent, or a reason is respelled', () => {
    expect(
      transitionOf(
        [c('False', 'Queued', 'position 2')],
        [c('False', 'Queued', 'position 1')],
        'Ready',
      ),
    ).toBeNull();
    expect(transitionOf([c('True', 'Ready')], [], 'Ready')).toBeNull();
    expect(transitionOf([c('True', 'running')], [c('True', 'Running')], 'Ready')).toBeNull();
    expect(
      transitionOf([c('False', 'usage_paused')], [c('False', 'UsagePaused')], 'Ready'),
    ).toBeNull();
  });
});

describe('eventOf', () => {
  it('records the reason and message, Normal or Warning', () => {
    expect(eventOf(c('False', 'BuildFailed', 'Build failed: pip'), true)).toEqual({
      type: 'Warning',
      reason: 'BuildFailed',
      note: 'Build failed: pip',
    });
    expect(eventOf(c('True', 'Active', 'ok'), false).type).toBe('Normal');
  });
});

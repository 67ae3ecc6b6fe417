import { describe, expect, it } from '@jest/globals';
import { isTrue, setCondition } from './conditions.js';

describe('setCondition', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const t1 = new Date('2026-01-01T00:05:00Z');

  it('adds a condition with its transition time', () => {
    const list = setCondition(
      [],
      { type: 'Ready', status: 'True', reason: 'Serving', message: 'ok' },
      t0,
    );
    expect(list).toEqual([
      {
        type: 'Ready',
        status: 'True',
        reason: 'Serving',
        message: 'ok',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
    expect(isTrue(list, 'Ready')).toBe(true);
  });

  it('keeps the transition time when only the reason or message changes', () => {
    const first = setCondition(
      [],
      { type: 'Ready', status: 'True', reason: 'A', message: 'a' },
      t0,
    );
    const second = setCondition(
      first,
      { type: 'Ready', status: 'True', reason: 'B', message: 'b' },
      t1,
    );
    expect(second[0]).toMatchObject({ reason: 'B', lastTransitionTime: '2026-01-01T00:00:00Z' });
  });

  it('moves the transition time when the status changes, and leaves other conditions alone', () => {
    const first = setCondition(
      [
        {
          type: 'Other',
          status: 'False',
          reason: 'X',
          message: '',
          lastTransitionTime: '2025-01-01T00:00:00Z',
        },
      ],
      { type: 'Ready', status: 'True', reason: 'A', message: '' },
      t0,
    );
    const second = setCondition(
      first,
      { type: 'Ready', status: 'False', reason: 'Down', message: '' },
      t1,
    );
    expect(second).toHaveLength(2);
    expect(second[0]?.lastTransitionTime).toBe('2025-01-01T00:00:00Z');
    expect(second[1]).toMatchObject({
      status: 'False',
      lastTransitionTime: '2026-01-01T00:05:00Z',
    });
    expect(isTrue(second, 'Ready')).toBe(false);
  });
});

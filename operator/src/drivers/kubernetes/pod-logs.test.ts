import { describe, expect, it } from '@jest/globals';
import { isAfter, parseTimestamped } from './pod-logs.js';

describe('pod log lines', () => {
  it('splits the kubelet timestamp from the text, spaces in the text kept', () => {
    expect(parseTimestamped('2026-12-01T17:52:49.702123456Z hello  world ')).toEqual({
      timestamp: '2026-12-01T17:52:49.702123456Z',
      message: 'hello  world ',
    });
    expect(parseTimestamped('2026-12-01T17:52:49.702123456Z ')).toEqual({
      timestamp: '2026-12-01T17:52:49.702123456Z',
      message: '',
    });
  });

  it('refuses a line without a timestamp', () => {
    expect(parseTimestamped('no timestamp here')).toBeNull();
    expect(parseTimestamped('')).toBeNull();
    expect(parseTimestamped(' leading space')).toBeNull();
  });

  it('orders kubelet times to the nanosecond, and skips what was shipped', () => {
    const a = '2026-12-01T17:52:49.702123456Z';
    const b = '2026-12-01T17:52:49.702123457Z';
    expect(isAfter(b, a)).toBe(true);
    expect(isAfter(a, a)).toBe(false);
    expect(isAfter(a, b)).toBe(false);
    expect(isAfter(a, undefined)).toBe(true);
    // RFC3339Nano trims trailing zeros: widths differ within the same millisecond.
    expect(isAfter('2026-12-01T17:52:49.70212346Z', a)).toBe(true);
    expect(isAfter('2026-12-01T17:52:49.7021Z', a)).toBe(false);
    expect(isAfter('2026-12-01T17:52:50Z', a)).toBe(true);
    expect(isAfter(a, '2026-12-01T17:52:49.7021Z')).toBe(true);
  });
});

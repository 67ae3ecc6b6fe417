import { describe, expect, test } from '@jest/globals';
import { MAX_JSON_DEPTH, depthExceededAt } from './json-depth.js';
import { seededRandom } from './seeded-random.js';

const nested = (levels: number, inner = '1') =>
  Buffer.from('{"a":['.repeat(levels / 2) + inner + ']}'.repeat(levels / 2));

describe('depthExceededAt', () => {
  test('accepts 127 levels, as serde_json does, and points at the bracket opening the 128th', () => {
    expect(MAX_JSON_DEPTH).toBe(127);
    const deepest = Buffer.from('['.repeat(127) + ']'.repeat(127));
    expect(depthExceededAt(deepest)).toBe(-1);
    const tooDeep = Buffer.from('['.repeat(128) + ']'.repeat(128));
    expect(depthExceededAt(tooDeep)).toBe(127);
    expect(depthExceededAt(nested(126))).toBe(-1);
    expect(depthExceededAt(nested(128))).toBe('{"a":['.repeat(63).length + 5);
  });

  test('counts levels, not brackets: siblings do not add up', () => {
    const wide = Buffer.from(`[${'[[1]],'.repeat(10_000)}[]]`);
    expect(depthExceededAt(wide, 3)).toBe(-1);
    expect(depthExceededAt(wide, 2)).toBe(2);
  });

  test('brackets inside strings do not count, whatever the escapes around them', () => {
    const strings = ['"[[[[{{{{"', '"\\"[[[[\\""', '"\\\\"', '"a\\\\\\"[[[["', '"\\u005b\\u007b"'];
    for (const s of strings) {
      const body = Buffer.from(`[${s}, [1]]`);
      expect([s, depthExceededAt(body, 2)]).toEqual([s, -1]);
      expect(depthExceededAt(body, 1)).toBe(body.length - 4);
    }
    // An even run of backslashes ends the string, so the brackets after it count.
    expect(depthExceededAt(Buffer.from('["\\\\", [[1]]]'), 2)).toBe(8);
  });

  test('leaves malformed bytes for JSON.parse to report', () => {
    expect(depthExceededAt(Buffer.from('["unterminated [[[['), 1)).toBe(-1);
    expect(depthExceededAt(Buffer.from(']]]]{'), 1)).toBe(-1);
    expect(depthExceededAt(Buffer.alloc(0))).toBe(-1);
  });

  test('finds a deep opening at once in 16 MB of brackets, and reads 16 MB of string through', () => {
    const brackets = Buffer.alloc(16 * 1024 * 1024, '[');
    expect(depthExceededAt(brackets)).toBe(127);
    const string = Buffer.from(JSON.stringify({ s: '[{'.repeat(8 * 1024 * 1024), n: [[1]] }));
    expect(depthExceededAt(string, 2)).toBe(string.length - 5);
  });
});

describe('depthExceededAt on random JSON', () => {
  const random = seededRandom(17);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  // Strings full of what could fool a scanner: brackets, quotes, backslashes, long runs.
  const text = () => {
    const parts = ['[', ']', '{', '}', '"', '\\', '\\"', 'a', 'é', '😀', ' ', 'x'.repeat(60)];
    return Array.from({ length: Math.floor(random() * 8) }, () => pick(parts)).join('');
  };
  const value = (depth: number): unknown => {
    const roll = random();
    if (depth === 0 || roll < 0.3) return pick([1.5e-7, -3, true, null, text()]);
    const size = Math.floor(random() * 4);
    if (roll < 0.65) return Array.from({ length: size }, () => value(depth - 1));
    return Object.fromEntries(Array.from({ length: size }, () => [text(), value(depth - 1)]));
  };
  const depthOf = (v: unknown): number =>
    typeof v !== 'object' || v === null
      ? 0
      : 1 + Math.max(0, ...Object.values(v as Record<string, unknown>).map(depthOf));

  test('finds the depth JSON.parse finds, for any limit', () => {
    for (let i = 0; i < 1000; i++) {
      const v = value(1 + Math.floor(random() * 12));
      const bytes = Buffer.from(JSON.stringify(v, null, random() < 0.5 ? 0 : 1));
      const depth = depthOf(JSON.parse(bytes.toString()));
      expect(depthExceededAt(bytes, depth)).toBe(-1);
      if (depth === 0) continue;
      const found = depthExceededAt(bytes, depth - 1);
      expect(['[', '{']).toContain(String.fromCharCode(bytes[found]!));
      // What opens there is nested exactly `depth` levels deep.
      expect(depthExceededAt(bytes.subarray(0, found + 1), depth - 1)).toBe(found);
      expect(depthExceededAt(bytes.subarray(0, found), depth - 1)).toBe(-1);
    }
  });
});

import { describe, expect, test } from '@jest/globals';
import { BatchWriter } from './batch-writer.js';

describe('BatchWriter', () => {
  test('appends whole buffers and ranges, growing past its first size', () => {
    const out = BatchWriter.acquire();
    const big = Buffer.alloc(3 * 1024 * 1024, 0x61);
    out.write(Buffer.from('{"points":['));
    out.write(Buffer.from('xx[1,2]yy'), 2, 7);
    out.write(big);
    expect(out.length).toBe(11 + 5 + big.length);
    expect(out.bytes().subarray(0, 16).toString()).toBe('{"points":[[1,2]');
    expect(out.bytes().subarray(16).equals(big)).toBe(true);
    out.release();
  });

  test('reset starts over in the same buffer', () => {
    const out = BatchWriter.acquire();
    out.write(Buffer.from('first batch'));
    out.reset();
    out.write(Buffer.from('second'));
    expect(out.bytes().toString()).toBe('second');
    out.release();
  });

  test('a released buffer serves the next writer', () => {
    const first = BatchWriter.acquire();
    first.write(Buffer.from('abc'));
    const buffer = first.bytes().buffer;
    first.release();
    expect(first.length).toBe(0);
    const next = BatchWriter.acquire();
    next.write(Buffer.from('z'));
    expect(next.bytes().buffer).toBe(buffer);
    expect(next.bytes().toString()).toBe('z');
    next.release();
  });

  test('claim hands out a view of the size asked for, growing when it must', () => {
    const out = BatchWriter.acquire(16);
    out.write(Buffer.from('old'));
    const view = out.claim(2 * 1024 * 1024);
    expect(view.length).toBe(2 * 1024 * 1024);
    expect(out.length).toBe(view.length);
    view.fill(0x63);
    expect(out.bytes().equals(view)).toBe(true);
    out.release();
  });
});

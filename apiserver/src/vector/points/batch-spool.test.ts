import { describe, expect, test } from '@jest/globals';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchSpool } from './batch-spool.js';
import { BatchWriter } from './batch-writer.js';

describe('BatchSpool', () => {
  test('gives its batches back in order, each in the view it is handed', async () => {
    const spool = new BatchSpool();
    const big = Buffer.alloc(3 * 1024 * 1024, 0x62);
    await spool.append(Buffer.from('{"points":[1]}'));
    await spool.append(big);
    await spool.append(Buffer.from('{"points":[3]}'));
    expect(spool.length).toBe(3);
    const writer = BatchWriter.acquire(16);
    const read: string[] = [];
    for await (const bytes of spool.batches((size) => writer.claim(size))) {
      read.push(bytes.length > 100 ? `${bytes.length} b` : bytes.toString());
      expect(writer.bytes().equals(bytes)).toBe(true);
    }
    await spool.close();
    expect(read).toEqual(['{"points":[1]}', `${big.length} b`, '{"points":[3]}']);
  });

  test('leaves no file behind, open or closed, and closing twice is harmless', async () => {
    // A temporary directory of this test's own (os.tmpdir() reads TMPDIR), so others' spools never show.
    const own = await mkdtemp(join(tmpdir(), 'spool-test-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = own;
    try {
      const spool = new BatchSpool();
      await spool.append(Buffer.from('batch'));
      expect(await readdir(own)).toEqual([]);
      const read: string[] = [];
      for await (const bytes of spool.batches((size) => Buffer.alloc(size))) read.push(`${bytes}`);
      expect(read).toEqual(['batch']);
      await spool.close();
      await spool.close();
      expect(await readdir(own)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await rm(own, { recursive: true, force: true });
    }
  });

  test('holds nothing and opens no file until a batch is appended', async () => {
    const spool = new BatchSpool();
    const views: number[] = [];
    for await (const bytes of spool.batches((size) => Buffer.alloc(size))) views.push(bytes.length);
    expect(views).toEqual([]);
    expect(spool.length).toBe(0);
    await spool.close();
  });
});

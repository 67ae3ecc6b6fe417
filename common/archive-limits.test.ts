import { describe, expect, it } from '@jest/globals';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { ArchiveLimitError, ArchiveMeter, extractWithin } from './archive-limits.js';

const limits = { maxUnpackedBytes: 1000, maxEntries: 3, maxFileBytes: 600 };

/** A tar (not gzipped) of `files`, each `[name, bytes]` of zeros. */
async function tarOf(files: Array<[string, number]>): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: unknown) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve) => tar.on('end', () => resolve()));
  for (const [name, bytes] of files) tar.entry({ name }, Buffer.alloc(bytes));
  tar.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** A source that records how many of its bytes were read. */
function metered(bytes: Buffer, chunk = 4096): { source: Readable; read: () => number } {
  let offset = 0;
  const source = new Readable({
    highWaterMark: chunk,
    read() {
      if (offset >= bytes.length) return this.push(null);
      this.push(bytes.subarray(offset, offset + chunk));
      offset += chunk;
    },
  });
  return { source, read: () => offset };
}

function limitOf(run: () => void): ArchiveLimitError {
  try {
    run();
  } catch (err) {
    if (err instanceof ArchiveLimitError) return err;
    throw err;
  }
  throw new Error('no limit was passed');
}

describe('ArchiveMeter', () => {
  it('accepts entries up to every limit exactly', () => {
    const meter = new ArchiveMeter(limits);
    meter.entry('a', 600);
    meter.entry('b', 400);
    meter.entry('dir/', 0);
  });

  it('refuses the entry after the last one allowed', () => {
    const meter = new ArchiveMeter(limits);
    for (const name of ['a', 'b', 'c']) meter.entry(name, 0);
    const err = limitOf(() => meter.entry('d', 0));
    expect(err).toMatchObject({ limit: 'entries', allowed: 3, path: 'd' });
    expect(err.message).toContain('more than 3 entries');
  });

  it('refuses a file over the per-file limit on its declared size, naming it', () => {
    const err = limitOf(() => new ArchiveMeter(limits).entry('big.bin', 601));
    expect(err).toMatchObject({ limit: 'file_bytes', allowed: 600, path: 'big.bin' });
    expect(err.message).toContain('big.bin');
  });

  it('refuses the file that takes the total over the unpacked limit', () => {
    const meter = new ArchiveMeter(limits);
    meter.entry('a', 500);
    const err = limitOf(() => meter.entry('b', 501));
    expect(err).toMatchObject({ limit: 'unpacked_bytes', allowed: 1000, path: 'b' });
  });

  it('refuses a decompressed stream far beyond what the files and their headers explain', () => {
    const meter = new ArchiveMeter(limits);
    meter.decompressed(1000 + 4 * 8 * 1024 + 1024 * 1024);
    expect(limitOf(() => meter.decompressed(1))).toMatchObject({ limit: 'unpacked_bytes' });
  });

  it('names sizes in binary units when they are whole', () => {
    const meter = new ArchiveMeter({ ...limits, maxFileBytes: 100 * 1024 * 1024 });
    expect(limitOf(() => meter.entry('x', 200 * 1024 * 1024)).message).toContain('100 MiB');
  });
});

describe('extractWithin', () => {
  it('hands every entry of an archive within its limits to the handler', async () => {
    const seen: string[] = [];
    const { source } = metered(
      gzipSync(
        await tarOf([
          ['a', 10],
          ['b/c', 20],
        ]),
      ),
    );
    await extractWithin(source, limits, (header, stream, next) => {
      seen.push(`${header.name}:${header.size}`);
      stream.on('end', () => next());
      stream.resume();
    });
    expect(seen).toEqual(['a:10', 'b/c:20']);
  });

  it('stops reading a gzip bomb once the unpacked limit is passed', async () => {
    // 64 files of 1 MiB of zeros: 64 MiB unpacked, about 64 KiB compressed.
    const files = Array.from({ length: 64 }, (_, i): [string, number] => [`f${i}`, 1024 * 1024]);
    const bomb = gzipSync(await tarOf(files), { level: 9 });
    const { source, read } = metered(bomb, 256);
    const handled: string[] = [];
    const outcome = extractWithin(
      source,
      { maxUnpackedBytes: 4 * 1024 * 1024, maxEntries: 1000, maxFileBytes: 1024 * 1024 },
      (header, stream, next) => {
        handled.push(header.name);
        stream.on('end', () => next());
        stream.resume();
      },
    );
    await expect(outcome).rejects.toMatchObject({ limit: 'unpacked_bytes', path: 'f4' });
    expect(handled).toEqual(['f0', 'f1', 'f2', 'f3']);
    expect(read()).toBeLessThan(bomb.length / 2);
  });

  it('refuses an archive with more entries than allowed before handing over the extra one', async () => {
    const files = Array.from({ length: 50 }, (_, i): [string, number] => [`e${i}`, 0]);
    const handled: string[] = [];
    const outcome = extractWithin(
      metered(gzipSync(await tarOf(files))).source,
      limits,
      (header, stream, next) => {
        handled.push(header.name);
        stream.on('end', () => next());
        stream.resume();
      },
    );
    await expect(outcome).rejects.toMatchObject({ limit: 'entries', allowed: 3 });
    expect(handled).toEqual(['e0', 'e1', 'e2']);
  });

  it('refuses a tar followed by an endless run of zero blocks', async () => {
    const zeros = Buffer.alloc(4 * 1024 * 1024);
    const outcome = extractWithin(
      metered(gzipSync(Buffer.concat([await tarOf([['a', 1]]), zeros]))).source,
      { maxUnpackedBytes: 1024, maxEntries: 2, maxFileBytes: 1024 },
      (_header, stream, next) => {
        stream.on('end', () => next());
        stream.resume();
      },
    );
    await expect(outcome).rejects.toMatchObject({ limit: 'unpacked_bytes', path: null });
  });

  it('passes on the parser error for bytes that are not a tar.gz', async () => {
    const outcome = extractWithin(metered(Buffer.from('not gzip')).source, limits, () => {
      throw new Error('no entry expected');
    });
    await expect(outcome).rejects.not.toBeInstanceOf(ArchiveLimitError);
  });
});

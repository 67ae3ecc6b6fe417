/** Builds tar.gz code archives for deploy tests, with tar-stream and zlib like a real client would. */
import { Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

/** A file of an archive: its text, or its text and mode. */
export type ArchiveFile = string | { content: string | Buffer; mode?: number };

/** A gzip-compressed tar of `files` (path -> content). */
export async function makeArchive(files: Record<string, ArchiveFile>): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: unknown) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve) => tar.on('end', () => resolve()));
  for (const [name, file] of Object.entries(files)) {
    const { content, mode } = typeof file === 'string' ? { content: file, mode: 0o644 } : file;
    await new Promise<void>((resolve, reject) =>
      tar.entry({ name, mode: mode ?? 0o644 }, content, (err) => (err ? reject(err) : resolve())),
    );
  }
  tar.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

/** A minimal Python ASGI service. */
export const PYTHON_SERVICE = `async def app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"hello"})
`;

/** A minimal Node service. */
export const NODE_SERVICE = `const http = require('node:http');
const app = (req, res) => res.end('hello');
module.exports = { app };
`;

const MiB = 1024 * 1024;

/** A ustar header of a regular file (or of a directory, for a name ending in `/`). */
export function tarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(512);
  const octal = (value: number, width: number, offset: number) =>
    header.write(`${value.toString(8).padStart(width - 1, '0')}\0`, offset, 'ascii');
  header.write(name, 0, 100, 'utf8');
  octal(name.endsWith('/') ? 0o755 : 0o644, 8, 100);
  octal(0, 8, 108);
  octal(0, 8, 116);
  octal(size, 12, 124);
  octal(1_700_000_000, 12, 136);
  header.write(name.endsWith('/') ? '5' : '0', 156, 'ascii');
  header.write('ustar\0' + '00', 257, 'ascii');
  header.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return header;
}

/** The shape of a gzip bomb: `files` files of `fileBytes` zeros each. */
export interface BombShape {
  files: number;
  fileBytes: number;
}

/**
 * The gzip members of a bomb of `shape`, in order. Concatenated members are
 * one gzip stream by the format's rules (`gzip -d` and zlib read them so),
 * and every whole MiB of zeros is the same precompressed member (about 1 KB),
 * so a bomb costs next to nothing to produce.
 */
function* bombMembers(shape: BombShape): Generator<Buffer> {
  const zerosMember = gzipSync(Buffer.alloc(MiB), { level: 9 });
  for (let i = 0; i < shape.files; i++) {
    yield gzipSync(tarHeader(`zeros-${i}.bin`, shape.fileBytes));
    const whole = Math.floor(shape.fileBytes / MiB);
    for (let m = 0; m < whole; m++) yield zerosMember;
    const rest = shape.fileBytes - whole * MiB;
    // The file's last partial MiB and the padding to the next 512-byte block.
    yield gzipSync(Buffer.alloc(rest + ((512 - (rest % 512)) % 512)));
  }
  yield gzipSync(Buffer.alloc(1024));
}

/**
 * A gzip bomb, generated as it is read: a tar of zero-filled files compressed
 * about 1000 to 1 (8 GiB of files in about 8.6 MB), never held whole in
 * memory or on disk.
 */
export function gzipBomb(shape: BombShape): Readable {
  return Readable.from(bombMembers(shape), { objectMode: false });
}

/** The compressed size of a bomb of `shape`. */
export function gzipBombSize(shape: BombShape): number {
  let total = 0;
  for (const member of bombMembers(shape)) total += member.length;
  return total;
}

/**
 * A tar.gz of `count` empty files with distinct names, generated and
 * compressed as it is read (a million entries are about 512 MB of tar and a
 * few MB of gzip; only what is read is ever produced).
 */
export function manyEntriesArchive(count: number): Readable {
  function* headers(): Generator<Buffer> {
    for (let i = 0; i < count; i++) yield tarHeader(`files/${i.toString(36)}.txt`, 0);
    yield Buffer.alloc(1024);
  }
  return Readable.from(headers(), { objectMode: false }).pipe(createGzip());
}

/**
 * A ustar archive written in memory (what the deploy route reads, once
 * gzipped): one 512-byte header per regular file, names over 100 bytes split
 * into the prefix field, then two zero blocks.
 */

/** One file of the archive. */
export interface TarEntry {
  path: string;
  bytes: Uint8Array;
  /** 0o755 for an executable, else 0o644. */
  mode?: number;
  /** Modification time, seconds since the epoch (default 0). */
  mtime?: number;
}

const BLOCK = 512;
const encoder = new TextEncoder();

/** The tar archive of `entries`, in order. */
export function tarArchive(entries: readonly TarEntry[]): Uint8Array {
  const size = entries.reduce((sum, e) => sum + BLOCK + padded(e.bytes.length), 2 * BLOCK);
  const out = new Uint8Array(size);
  let at = 0;
  for (const entry of entries) {
    out.set(header(entry), at);
    at += BLOCK;
    out.set(entry.bytes, at);
    at += padded(entry.bytes.length);
  }
  return out;
}

function padded(n: number): number {
  return Math.ceil(n / BLOCK) * BLOCK;
}

/** Splits a path into ustar's name (≤ 100 bytes) and prefix (≤ 155 bytes) at a `/`. */
export function splitName(path: string): { name: string; prefix: string } {
  if (encoder.encode(path).length <= 100) return { name: path, prefix: '' };
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (encoder.encode(prefix).length <= 155 && encoder.encode(name).length <= 100)
      return { name, prefix };
  }
  throw new Error(`The path ${path} is too long for a tar archive.`);
}

function header(entry: TarEntry): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const { name, prefix } = splitName(entry.path);
  const put = (text: string, offset: number, length: number) =>
    h.set(encoder.encode(text).slice(0, length), offset);
  const octal = (value: number, offset: number, length: number) =>
    put(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length);
  put(name, 0, 100);
  octal(entry.mode ?? 0o644, 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(entry.bytes.length, 124, 12);
  octal(Math.floor(entry.mtime ?? 0), 136, 12);
  put('        ', 148, 8);
  put('0', 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  put(prefix, 345, 155);
  const checksum = h.reduce((sum, b) => sum + b, 0);
  put(`${checksum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}

/** `bytes` gzipped by the platform's CompressionStream (browsers and Node 18+). */
export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

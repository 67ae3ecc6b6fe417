/**
 * Reads one small file out of a tar.gz in the browser (DecompressionStream,
 * then the ustar headers): the deploy page reads an uploaded archive's
 * svc.yaml to create a missing agent with its runtime and type, as it does
 * for a folder. Entries are walked until the file is found; nothing is kept
 * but that file.
 */

const BLOCK = 512;
const decoder = new TextDecoder();

/** The root-level file `name` (also as `./name`) of the tar.gz `archive` as text, or null. */
export async function readFromTarGz(archive: Blob, name: string): Promise<string | null> {
  const stream = archive.stream().pipeThrough(new DecompressionStream('gzip'));
  return readFromTar(new Uint8Array(await new Response(stream).arrayBuffer()), name);
}

/** The root-level file `name` of the tar bytes `tar` as text, or null. */
export function readFromTar(tar: Uint8Array, name: string): string | null {
  let at = 0;
  let longName: string | null = null;
  while (at + BLOCK <= tar.length) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) return null;
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] ?? 48);
    const prefix = field(header, 345, 155);
    const entry =
      longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    const body = tar.subarray(at + BLOCK, at + BLOCK + size);
    longName = type === 'L' ? field(body, 0, body.length) : null;
    if ((type === '0' || type === '\0') && (entry === name || entry === `./${name}`))
      return decoder.decode(body);
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return null;
}

function field(bytes: Uint8Array, offset: number, length: number): string {
  const slice = bytes.subarray(offset, offset + length);
  const end = slice.indexOf(0);
  return decoder.decode(end === -1 ? slice : slice.subarray(0, end));
}

/** Packs a directory into a gzip-compressed tar stream (regular files, with their modes). */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { pack } from 'tar-stream';

async function* files(root: string, dir = root): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(root, path);
    else if (entry.isFile()) yield path;
  }
}

/** A tar.gz of `dir`, produced as it is read. */
export function packDirectory(dir: string): Readable {
  const tar = pack();
  void (async () => {
    for await (const path of files(dir)) {
      const info = await stat(path);
      const entry = tar.entry({
        name: relative(dir, path),
        size: info.size,
        mode: info.mode & 0o777,
      });
      await pipeline(createReadStream(path), entry);
    }
    tar.finalize();
  })().catch((err: unknown) => tar.destroy(err as Error));
  return tar.pipe(createGzip());
}

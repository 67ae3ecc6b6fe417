/**
 * What a deployment's code archive leaves out and how it is written, shared by
 * every client that packs one: the code host's packer in the API server and
 * the `svc` command-line client. The list is the contract's built-in upload
 * exclusions; `.svcignore` patterns come on top of it.
 */
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { pack } from 'tar-stream';

export { BUILT_IN_EXCLUSIONS, IGNORE_FILE } from './upload-exclusions.js';

/** The tar.gz of `paths` (relative to `root`, `/`-separated), regular files only, modes kept. */
export async function packFiles(root: string, paths: readonly string[]): Promise<Buffer> {
  const tar = pack();
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
    tar.on('error', reject);
  });
  tar.pipe(gzip);
  for (const path of paths) {
    const full = join(root, path);
    const stat = await lstat(full);
    if (!stat.isFile()) continue;
    const content = await readFile(full);
    await new Promise<void>((resolve, reject) =>
      tar.entry({ name: path, mode: stat.mode & 0o111 ? 0o755 : 0o644 }, content, (err) =>
        err ? reject(err) : resolve(),
      ),
    );
  }
  tar.finalize();
  await done;
  return Buffer.concat(chunks);
}

/**
 * Packs a checked-out commit the way a client's upload would be: the tracked
 * files under the deployed directory, less those `.svcignore` names (read by
 * git itself, so its patterns mean what they mean in `.gitignore`) and the
 * contract's built-in exclusions, as a tar.gz with the directory at its root.
 * Only regular files are packed (no symbolic links, no submodules).
 */
import { lstat, readFile } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import { createGzip } from 'node:zlib';
import { pack } from 'tar-stream';
import { runGit } from './git.js';

/** Left out of every deployment whatever `.svcignore` says (the contract's list). */
export const BUILT_IN_EXCLUSIONS = [
  '.git',
  '.env',
  '__pycache__',
  'node_modules',
  'venv',
  '.DS_Store',
  '*.log',
] as const;

/** A subdirectory that climbs out of the repository. */
export class SubdirectoryError extends Error {}

/** The subdirectory in a safe, normalised form (`a/b`), or '' for the root. */
export function normaliseSubdirectory(subdirectory: string | null): string {
  if (!subdirectory) return '';
  const clean = normalize(subdirectory.replace(/^\/+/, '')).replace(/\/+$/, '');
  if (clean === '.' || clean === '') return '';
  if (clean.split(sep).includes('..'))
    throw new SubdirectoryError('The subdirectory must stay inside the repository.');
  return clean;
}

/** The paths packed from the checkout `dir` under `subdirectory`, relative to it, sorted. */
export async function packedPaths(dir: string, subdirectory: string): Promise<string[]> {
  const root = join(dir, subdirectory);
  const opts = { cwd: root, credentials: null };
  const split = (out: string) => out.split('\0').filter((p) => p !== '');
  const tracked = split(await runGit(['ls-files', '-z', '--cached'], opts));
  const excludes = BUILT_IN_EXCLUSIONS.map((pattern) => `--exclude=${pattern}`);
  const ignored = new Set(
    split(
      await runGit(
        [
          'ls-files',
          '-z',
          '--cached',
          '--ignored',
          '--exclude-per-directory=.svcignore',
          ...excludes,
        ],
        opts,
      ),
    ),
  );
  return tracked.filter((path) => !ignored.has(path)).sort();
}

/** The tar.gz of `paths` (relative to `root`), regular files only, modes kept. */
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

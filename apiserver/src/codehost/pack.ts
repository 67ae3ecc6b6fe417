/**
 * Packs a checked-out commit the way a client's upload would be: the tracked
 * files under the deployed directory, less those `.svcignore` names (read by
 * git itself, so its patterns mean what they mean in `.gitignore`) and the
 * contract's built-in exclusions, as a tar.gz with the directory at its root.
 * Only regular files are packed (no symbolic links, no submodules).
 */
import { join, normalize, sep } from 'node:path';
import { BUILT_IN_EXCLUSIONS, IGNORE_FILE, packFiles } from '../../../common/code-archive.js';
import { runGit } from './git.js';

// The writer is shared with the CLI; the code host's callers keep importing it from here.
export { packFiles };

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
          `--exclude-per-directory=${IGNORE_FILE}`,
          ...excludes,
        ],
        opts,
      ),
    ),
  );
  return tracked.filter((path) => !ignored.has(path)).sort();
}

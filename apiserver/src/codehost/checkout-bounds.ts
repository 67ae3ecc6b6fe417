/**
 * The deployed subdirectory of a tenant's checkout must be a real directory
 * of it: a symbolic link there (to `/srv/other-repo`, say) would make git
 * list, and the packer read, another repository of the API server's machine.
 * (The tree's size is bounded before checkout: git.ts, checkTreeWithin.)
 */
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { SubdirectoryError } from './pack.js';

/**
 * The checkout's directory that is deployed: `subdirectory` of `dir`, which
 * must be a directory of the commit itself and not reached through a
 * symbolic link; throws SubdirectoryError otherwise.
 */
export async function deployedRoot(dir: string, subdirectory: string): Promise<string> {
  const root = join(dir, subdirectory);
  const real = await realpath(root).catch(() => null);
  if (real === null || real !== join(await realpath(dir), subdirectory)) {
    throw new SubdirectoryError(
      `The subdirectory ${subdirectory} is not a directory of the commit (symbolic links are not followed).`,
    );
  }
  return root;
}

/**
 * Which files of a project a deploy uploads: every regular file under the
 * directory, less the contract's built-in exclusions and what `.svcignore`
 * files say, in gitignore syntax (read by the `ignore` package): a
 * `.svcignore` applies to its own directory and everything below it, as a
 * `.gitignore` does, and an excluded directory is not entered. Symbolic links
 * are left out, as the code host's packer leaves them out.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { BUILT_IN_EXCLUSIONS, IGNORE_FILE } from '../../../common/code-archive.js';

/** The files packed and those left out, as `/`-separated paths relative to the project. */
export interface ProjectFiles {
  included: string[];
  /** Excluded files and directories (a directory ends with `/`; nothing under it is listed). */
  excluded: string[];
}

/** A matcher and the directory (relative, '' for the root) its patterns are relative to. */
interface Scope {
  base: string;
  matcher: Ignore;
}

/** Lists the project at `root`. */
export async function listProjectFiles(root: string): Promise<ProjectFiles> {
  const result: ProjectFiles = { included: [], excluded: [] };
  const builtIn: Scope = { base: '', matcher: ignore().add([...BUILT_IN_EXCLUSIONS]) };
  await walk(root, '', [builtIn], result);
  result.included.sort();
  result.excluded.sort();
  return result;
}

async function walk(root: string, dir: string, scopes: Scope[], result: ProjectFiles) {
  const here = [...scopes];
  const ignoreText = await readFile(join(root, dir, IGNORE_FILE), 'utf8').catch(() => null);
  if (ignoreText !== null) here.push({ base: dir, matcher: ignore().add(ignoreText) });
  const entries = await readdir(join(root, dir), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = dir ? posix.join(dir, entry.name) : entry.name;
    const isDir = entry.isDirectory();
    if (isIgnored(here, path, isDir)) {
      result.excluded.push(isDir ? `${path}/` : path);
      continue;
    }
    if (isDir) await walk(root, path, here, result);
    else if (entry.isFile()) result.included.push(path);
  }
}

/**
 * Whether `path` is ignored: the deepest `.svcignore` with a say decides (so a
 * `!pattern` below re-includes what one above excluded), as in git.
 */
function isIgnored(scopes: readonly Scope[], path: string, isDir: boolean): boolean {
  let ignored = false;
  for (const { base, matcher } of scopes) {
    const relative = base ? posix.relative(base, path) : path;
    const verdict = matcher.test(isDir ? `${relative}/` : relative);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}

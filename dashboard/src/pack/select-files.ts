/**
 * Which files of a dropped or chosen folder a deploy uploads, decided in the
 * browser as `svc deploy` decides on disk (cli/src/deploy/project-files.ts):
 * the contract's built-in exclusions, then each `.svcignore` for its own
 * directory and below in gitignore syntax (the `ignore` package), the
 * deepest with a say deciding; an excluded directory excludes all under it.
 */
import ignore, { type Ignore } from 'ignore';
import { BUILT_IN_EXCLUSIONS, IGNORE_FILE } from '../../../common/upload-exclusions.js';

/** The files kept and those left out, as `/`-separated paths relative to the project. */
export interface Selection {
  included: string[];
  /** Left out: files, and directories ending with `/` (nothing under one is listed). */
  excluded: string[];
}

interface Scope {
  base: string;
  matcher: Ignore;
}

/**
 * Splits `paths` (files relative to the project root) into kept and left out;
 * `ignoreFiles` maps a directory ('' for the root) to its `.svcignore` text.
 */
export function selectFiles(
  paths: readonly string[],
  ignoreFiles: ReadonlyMap<string, string>,
): Selection {
  const builtIn: Scope = { base: '', matcher: ignore().add([...BUILT_IN_EXCLUSIONS]) };
  const scopes = new Map<string, Scope>();
  for (const [dir, text] of ignoreFiles)
    scopes.set(dir, { base: dir, matcher: ignore().add(text) });
  const scopesAt = (dir: string): Scope[] => {
    const found = [builtIn];
    const parts = dir === '' ? [] : dir.split('/');
    for (let i = 0; i <= parts.length; i++) {
      const scope = scopes.get(parts.slice(0, i).join('/'));
      if (scope) found.push(scope);
    }
    return found;
  };
  const included: string[] = [];
  const excluded = new Set<string>();
  for (const path of [...paths].sort()) {
    const parts = path.split('/');
    let out = false;
    for (let i = 1; i < parts.length && !out; i++) {
      const dir = parts.slice(0, i).join('/');
      if (isIgnored(scopesAt(parts.slice(0, i - 1).join('/')), dir, true)) {
        excluded.add(`${dir}/`);
        out = true;
      }
    }
    if (out) continue;
    if (isIgnored(scopesAt(parts.slice(0, -1).join('/')), path, false)) excluded.add(path);
    else included.push(path);
  }
  return { included, excluded: [...excluded].sort() };
}

function isIgnored(scopes: readonly Scope[], path: string, isDir: boolean): boolean {
  let ignored = false;
  for (const { base, matcher } of scopes) {
    const relative = base ? path.slice(base.length + 1) : path;
    const verdict = matcher.test(isDir ? `${relative}/` : relative);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}

/** The directory (relative, '' for the root) whose `.svcignore` `path` is, or null. */
export function ignoreFileDir(path: string): string | null {
  if (path === IGNORE_FILE) return '';
  return path.endsWith(`/${IGNORE_FILE}`) ? path.slice(0, -IGNORE_FILE.length - 1) : null;
}

/**
 * Paths relative to the chosen folder: a folder picker names every file
 * `folder/...`; the common first segment is dropped when all share it.
 */
export function stripCommonRoot(paths: readonly string[]): string[] {
  const first = paths[0]?.split('/')[0];
  if (first === undefined || paths.some((p) => !p.startsWith(`${first}/`))) return [...paths];
  return paths.map((p) => p.slice(first.length + 1));
}

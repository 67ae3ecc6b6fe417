/**
 * A project chosen in the browser (a folder picked or dropped) turned into
 * the tar.gz a deploy uploads: `.svcignore` and the built-in exclusions
 * applied, executables kept executable by name (`*.sh`), files in path order.
 */
import { ignoreFileDir, selectFiles, stripCommonRoot, type Selection } from './select-files.js';
import { gzip, tarArchive } from './tar.js';

/** A file of a chosen project and its path relative to the project root. */
export interface ProjectFile {
  path: string;
  file: Blob;
}

/** What will be uploaded and what is left out. */
export interface PackPlan extends Selection {
  files: ProjectFile[];
}

/** Names every file relative to the folder chosen (a picker's `folder/...` prefix dropped). */
export function projectFiles(files: readonly { path: string; file: Blob }[]): ProjectFile[] {
  const paths = stripCommonRoot(files.map((f) => f.path));
  return files.map((f, i) => ({ path: paths[i]!, file: f.file }));
}

/** Applies the exclusions (reading each `.svcignore`). */
export async function planPack(files: readonly ProjectFile[]): Promise<PackPlan> {
  const ignoreFiles = new Map<string, string>();
  for (const f of files) {
    const dir = ignoreFileDir(f.path);
    if (dir !== null) ignoreFiles.set(dir, await f.file.text());
  }
  const selection = selectFiles(
    files.map((f) => f.path),
    ignoreFiles,
  );
  const byPath = new Map(files.map((f) => [f.path, f]));
  return { ...selection, files: selection.included.map((p) => byPath.get(p)!) };
}

/** The tar.gz of the plan's files. */
export async function packArchive(plan: PackPlan): Promise<Blob> {
  const entries = await Promise.all(
    plan.files.map(async (f) => ({
      path: f.path,
      bytes: new Uint8Array(await f.file.arrayBuffer()),
      mode: f.path.endsWith('.sh') ? 0o755 : 0o644,
    })),
  );
  return new Blob([(await gzip(tarArchive(entries))) as BlobPart], { type: 'application/gzip' });
}

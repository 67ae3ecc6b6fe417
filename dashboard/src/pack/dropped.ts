/**
 * Files from the browser's pickers and drag-and-drop, with their paths: a
 * folder picker names each file by `webkitRelativePath`; a dropped folder is
 * walked through the File and Directory Entries API.
 */
import type { ProjectFile } from './project.js';

/** The files of a folder picker's FileList. */
export function pickedFiles(list: FileList): ProjectFile[] {
  return Array.from(list, (file) => ({ path: file.webkitRelativePath || file.name, file }));
}

/**
 * The files of a drop: each dropped folder walked, each dropped file as is
 * (a file without an entry, as a script's DataTransfer gives, by getAsFile).
 */
export async function droppedFiles(items: DataTransferItemList): Promise<ProjectFile[]> {
  const list = Array.from(items).filter((item) => item.kind === 'file');
  const entries = list
    .map((item) => item.webkitGetAsEntry())
    .filter((e): e is FileSystemEntry => e !== null);
  if (entries.length === 0) {
    return list
      .map((item) => item.getAsFile())
      .filter((f): f is File => f !== null)
      .map((file) => ({ path: file.name, file }));
  }
  const out: ProjectFile[] = [];
  for (const entry of entries)
    await walk(entry, entry.isDirectory && entries.length === 1 ? '' : entry.name, out);
  return out;
}

async function walk(entry: FileSystemEntry, path: string, out: ProjectFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) =>
      (entry as FileSystemFileEntry).file(resolve, reject),
    );
    out.push({ path: path || entry.name, file });
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject),
    );
    if (batch.length === 0) return;
    for (const child of batch) await walk(child, path ? `${path}/${child.name}` : child.name, out);
  }
}

/** Whether a dropped or picked single file is an archive to upload as is. */
export function isArchive(name: string): boolean {
  return /\.(tar\.gz|tgz)$/i.test(name);
}

/**
 * Small JSON records the local driver keeps on disk, so a restarted operator
 * knows which builds finished, which agents should be serving which version,
 * and which runs it had started (a run is never started twice).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Reads a record; null when absent or unreadable. */
export async function readRecord<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

/** Writes a record atomically (write then rename). */
export async function writeRecord(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // Unique per write: two writes of one record at once must not share a temporary file.
  const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(temporary, JSON.stringify(value));
  await rename(temporary, path);
}

/** Removes a record. */
export async function removeRecord(path: string): Promise<void> {
  await rm(path, { force: true });
}

/**
 * Small JSON records the local driver keeps on disk, so a restarted operator
 * knows which builds finished, which agents should be serving which version,
 * and which runs it had started (a run is never started twice).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';

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

/** The file at the top of the builds directory that ends Node's search for a package.json. */
export const MODULE_BOUNDARY = 'package.json';

/**
 * Writes `<buildsDir>/package.json`, a manifest with no "type". Node decides
 * whether a `.js` file is CommonJS or an ES module by the nearest package.json
 * above it, however far up; without this one, an agent without a package.json
 * of its own built in a state directory inside a checkout of this repository
 * (agents running unconfined) would be loaded as an ES module, because of the
 * repository's own `"type": "module"`. With it, the agent's own files alone
 * decide, as in the sandbox and in a pod, where nothing is above /app.
 */
export async function writeModuleBoundary(buildsDir: string): Promise<void> {
  await mkdir(buildsDir, { recursive: true });
  await writeFile(
    join(buildsDir, MODULE_BOUNDARY),
    `${JSON.stringify(
      {
        private: true,
        description:
          'Ends the search for a package.json here: an agent build below is CommonJS or an ES module by its own files alone.',
      },
      null,
      2,
    )}\n`,
  );
}

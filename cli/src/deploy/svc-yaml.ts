/** The few keys of a project's `svc.yaml` that the CLI reads before uploading it. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';

/** What `deploy` needs to know from `svc.yaml` (the server applies the whole file). */
export interface ProjectSettings {
  name?: string;
  runtime?: string;
  type?: string;
}

/** The project's `svc.yaml`, or null when the directory has none. */
export async function readProjectSettings(dir: string): Promise<ProjectSettings | null> {
  let text: string;
  try {
    text = await readFile(join(dir, 'svc.yaml'), 'utf8');
  } catch {
    return null;
  }
  const doc = (parse(text) ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return { name: str(doc.name), runtime: str(doc.runtime), type: str(doc.type) };
}

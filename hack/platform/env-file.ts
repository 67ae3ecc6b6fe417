/** Writes `.dev/env`: shell `KEY=value` lines that scripts and tests outside the code read. */
import { writeFile } from 'node:fs/promises';

/** The variables of `.dev/env` (see ../shared/design.md, "Interfaces"); only those that exist so far. */
export interface PlatformEnv {
  SVC_API_URL: string;
  KUBECONFIG: string;
  MONGODB_URI: string;
}

/** Renders the variables as shell assignments, single-quoted so any value is safe to `source`. */
export function renderEnv(vars: Record<string, string>): string {
  return (
    Object.entries(vars)
      .map(([key, value]) => `${key}='${value.replaceAll("'", `'\\''`)}'`)
      .join('\n') + '\n'
  );
}

/** Writes the env file with mode 0600 (it will carry an API key). */
export async function writeEnvFile(path: string, vars: PlatformEnv): Promise<void> {
  await writeFile(path, renderEnv({ ...vars }), { mode: 0o600 });
}

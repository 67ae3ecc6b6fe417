/**
 * The single-machine platform's report on its supervised components (engine,
 * API server, operator, ...): written by its supervisor (hack/platform/) to a
 * small JSON file in the state directory on every change, and read by the API
 * server's health route when `SVC_PLATFORM_STATUS_FILE` names it. A file, not
 * a call, so the report survives a restart of either side and needs no port.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';

/** What a supervised component is doing now. */
export type ComponentState = 'running' | 'restarting' | 'failed';

/** One component's line in the report. */
export interface ComponentStatus {
  state: ComponentState;
  /** When it entered `state` (ISO 8601). */
  since: string;
  /** Restarts since the platform started. */
  restarts: number;
  /** How its last unexpected exit ended (`exit code 1`, `signal SIGKILL`), or null. */
  last_exit: string | null;
  /** When that was (ISO 8601), or null. */
  last_exit_at: string | null;
}

/** The whole report: one entry per component, by name. */
export type ComponentReport = Record<string, ComponentStatus>;

/** Writes the report atomically (a reader never sees half a file). */
export async function writeComponentReport(path: string, report: ComponentReport): Promise<void> {
  const partial = `${path}.${process.pid}.tmp`;
  await writeFile(partial, JSON.stringify({ components: report }, null, 2) + '\n');
  await rename(partial, path);
}

const STATES: readonly string[] = ['running', 'restarting', 'failed'];

/**
 * Reads the report back; undefined when the file is missing or not a report
 * (the health route then says nothing rather than fail).
 */
export async function readComponentReport(path: string): Promise<ComponentReport | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return undefined;
  }
  const components = (parsed as { components?: unknown } | null)?.components;
  if (typeof components !== 'object' || components === null) return undefined;
  const report: ComponentReport = {};
  for (const [name, value] of Object.entries(components)) {
    const status = value as Partial<ComponentStatus> | null;
    if (!status || !STATES.includes(String(status.state))) continue;
    report[name] = {
      state: status.state as ComponentState,
      since: String(status.since ?? ''),
      restarts: Number.isInteger(status.restarts) ? Number(status.restarts) : 0,
      last_exit: typeof status.last_exit === 'string' ? status.last_exit : null,
      last_exit_at: typeof status.last_exit_at === 'string' ? status.last_exit_at : null,
    };
  }
  return report;
}

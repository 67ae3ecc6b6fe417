/**
 * The agent configuration file, `svc.yaml`, at the root of a deployed archive:
 * parsed strictly, then applied to the agent's current settings as a merge
 * patch (an omitted key keeps its value; `schedule: null` removes the schedule).
 */
import { parse as parseYaml } from 'yaml';
import * as yup from 'yup';
import { AGENT_TYPES, RUNTIMES, type AgentType, type Runtime } from '../../../crds/src/index.js';
import { AGENT_NAME_MAX, AGENT_NAME_REGEX } from '../agents/names.js';
import { validateSchedule } from './schedule.js';

/** The keys of `svc.yaml`, as written in the file; every key is optional. */
export interface ConfigFile {
  /** Retargets the deploy to the agent of that name; never renames (see {@link mergeConfig}). */
  name?: string;
  runtime?: Runtime;
  type?: AgentType;
  entrypoint?: string;
  memory_mb?: number;
  regions?: string[];
  /** A cron expression, or `null` to remove the schedule (absent keeps it). */
  schedule?: string | null;
  keep_alive?: boolean;
  idle_timeout_minutes?: number;
  /** The build (pip, npm) gets the agent's secrets as environment variables; off by default. */
  build_secrets?: boolean;
}

/** An agent's settings that `svc.yaml` can change, after a merge. */
export interface EffectiveConfig {
  runtime: Runtime;
  agentType: AgentType;
  /** Null only for runtime `dockerfile`, where the image decides what runs. */
  entrypoint: string | null;
  memoryMb: number;
  regions: string[];
  /** Normalised 5-field cron expression, or null for no schedule. */
  schedule: string | null;
  keepAlive: boolean;
  idleTimeoutMinutes: number;
  buildSecrets: boolean;
}

/** The outcome of {@link parseConfigFile}. */
export type ParsedConfigFile = { ok: true; config: ConfigFile } | { ok: false; message: string };

/** The outcome of {@link mergeConfig}. */
export type MergedConfig =
  | { ok: true; config: EffectiveConfig }
  | { ok: false; code: 'RUNTIME_IMMUTABLE' | 'INVALID'; message: string };

const KNOWN_KEYS: ReadonlyArray<keyof ConfigFile> = [
  'name',
  'runtime',
  'type',
  'entrypoint',
  'memory_mb',
  'regions',
  'schedule',
  'keep_alive',
  'idle_timeout_minutes',
  'build_secrets',
];

// Only `schedule` gives null a meaning; elsewhere an empty value is a mistake
// the author should hear about rather than a silent "keep the current value".
const notNull = '${path} must not be empty; omit the key to keep the current value';

function fullRuntime(this: yup.TestContext, value: string | undefined) {
  if (value === undefined || (RUNTIMES as readonly string[]).includes(value)) return true;
  const family = RUNTIMES.filter((r) => r.startsWith(value));
  const message =
    value !== '' && family.length > 0
      ? `runtime must be a full value such as ${family.join(', ')}, not "${value}"`
      : `runtime must be one of ${RUNTIMES.join(', ')}; got "${value}"`;
  return this.createError({ message });
}

const schema = yup.object({
  name: yup
    .string()
    .typeError('name must be a string')
    .nonNullable(notNull)
    .min(1, 'name must not be empty')
    .max(AGENT_NAME_MAX, `name must be at most ${AGENT_NAME_MAX} characters`)
    .matches(
      AGENT_NAME_REGEX,
      'name may hold lowercase letters, digits and single hyphens, and must start and end with a letter or digit',
    ),
  runtime: yup
    .string()
    .typeError('runtime must be a string')
    .nonNullable(notNull)
    .test('full-runtime', fullRuntime),
  type: yup
    .string()
    .typeError(`type must be one of ${AGENT_TYPES.join(', ')}`)
    .nonNullable(notNull)
    .oneOf([...AGENT_TYPES], `type must be one of ${AGENT_TYPES.join(', ')}`),
  entrypoint: yup
    .string()
    .typeError('entrypoint must be a string')
    .nonNullable(notNull)
    .min(1, 'entrypoint must not be empty')
    .max(255, 'entrypoint must be at most 255 characters')
    .test(
      'relative-path',
      'entrypoint must be a relative path inside the archive (no leading / and no ..)',
      (v) => v === undefined || (!v.startsWith('/') && !v.split(/[/\\]/).includes('..')),
    ),
  memory_mb: yup
    .number()
    .typeError('memory_mb must be a number')
    .nonNullable(notNull)
    .integer('memory_mb must be a whole number')
    .positive('memory_mb must be greater than 0'),
  regions: yup
    .array(
      yup
        .string()
        .typeError('${path} must be a string')
        .min(1, '${path} must not be empty')
        .required('${path} must be a string'),
    )
    .typeError('regions must be a list of strings')
    .nonNullable(notNull)
    .min(1, 'regions must list at least one region'),
  schedule: yup.string().typeError('schedule must be a string, or null to remove it').nullable(),
  keep_alive: yup.boolean().typeError('keep_alive must be true or false').nonNullable(notNull),
  build_secrets: yup
    .boolean()
    .typeError('build_secrets must be true or false')
    .nonNullable(notNull),
  idle_timeout_minutes: yup
    .number()
    .typeError('idle_timeout_minutes must be a number')
    .nonNullable(notNull)
    .integer('idle_timeout_minutes must be a whole number')
    .min(0, 'idle_timeout_minutes must not be negative'),
});

/**
 * Parses the text of `svc.yaml`. An empty file (or one with only comments) is
 * an empty patch. Keys left out stay absent; `schedule: null` stays null.
 * Rejects YAML that is not a mapping, unknown keys and ill-typed values, with
 * every problem in one message (without a file-name prefix; the caller adds it).
 */
export function parseConfigFile(text: string): ParsedConfigFile {
  let document: unknown;
  try {
    // logLevel 'error': errors still throw, warnings (an unknown tag) stay off the process log.
    document = parseYaml(text, { logLevel: 'error' });
  } catch (err) {
    // The parser's message ends with a multi-line excerpt of the file; the first line says it all.
    const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
    return { ok: false, message: `not valid YAML: ${reason.replace(/:\s*$/, '')}` };
  }
  if (document === null || document === undefined) return { ok: true, config: {} };
  if (typeof document !== 'object' || Array.isArray(document)) {
    const got = Array.isArray(document) ? 'a list' : `a ${typeof document}`;
    return { ok: false, message: `the file must be a mapping of keys to values; got ${got}` };
  }

  const entries = document as Record<string, unknown>;
  const problems: string[] = [];
  const unknown = Object.keys(entries).filter((k) => !(KNOWN_KEYS as string[]).includes(k));
  if (unknown.length > 0) {
    problems.push(
      `unknown ${unknown.length === 1 ? 'key' : 'keys'} ${unknown.join(', ')} ` +
        `(known keys: ${KNOWN_KEYS.join(', ')})`,
    );
  }
  try {
    schema.validateSync(entries, { strict: true, abortEarly: false });
  } catch (err) {
    if (!(err instanceof yup.ValidationError)) throw err;
    problems.push(...err.errors);
  }
  if (problems.length > 0) return { ok: false, message: problems.join('; ') };

  // Copy only the keys written, so absent and null stay distinct.
  const config: Record<string, unknown> = {};
  for (const key of KNOWN_KEYS) if (key in entries) config[key] = entries[key];
  return { ok: true, config: config as ConfigFile };
}

/**
 * The entry point used when none is set: `main.py` for Python, `index.js` for
 * Node and Bun, `index.ts` for the TypeScript runtimes, and none for
 * `dockerfile`, whose image decides what runs.
 */
export function defaultEntrypoint(runtime: Runtime): string | null {
  if (runtime === 'dockerfile') return null;
  if (runtime.startsWith('python')) return 'main.py';
  if (runtime.endsWith('-ts')) return 'index.ts';
  return 'index.js';
}

/**
 * Applies a parsed `svc.yaml` to an existing agent's settings as a merge patch.
 *
 * - An omitted key keeps the current value; `schedule: null` removes the
 *   schedule, and a schedule string must pass {@link validateSchedule} (it is
 *   stored normalised).
 * - A `runtime` different from the current one fails with `RUNTIME_IMMUTABLE`:
 *   the runtime is fixed once the agent exists.
 * - `keep_alive: true` on a `job` agent (after the merge) fails with `INVALID`.
 * - The entry point falls back to {@link defaultEntrypoint} and is always null
 *   for runtime `dockerfile` (a file's entrypoint is ignored there).
 * - `name` is not applied: it selects which agent the deploy targets, which
 *   the caller resolves before merging; it never renames the agent.
 */
export function mergeConfig(current: EffectiveConfig, file: ConfigFile): MergedConfig {
  if (file.runtime !== undefined && file.runtime !== current.runtime) {
    return {
      ok: false,
      code: 'RUNTIME_IMMUTABLE',
      message:
        `runtime cannot change from ${current.runtime} to ${file.runtime} on an existing agent; ` +
        'deploy to a new agent to use another runtime',
    };
  }

  let schedule = current.schedule;
  if (file.schedule === null) {
    schedule = null;
  } else if (file.schedule !== undefined) {
    const checked = validateSchedule(file.schedule);
    if (!checked.ok) return { ok: false, code: 'INVALID', message: checked.message };
    schedule = checked.normalized;
  }

  const runtime = current.runtime;
  const agentType = file.type ?? current.agentType;
  const keepAlive = file.keep_alive ?? current.keepAlive;
  if (keepAlive && agentType === 'job') {
    return {
      ok: false,
      code: 'INVALID',
      message:
        'keep_alive: true is not allowed on a job agent, which runs once per run request; ' +
        'set keep_alive: false or type: service',
    };
  }

  const entrypoint =
    runtime === 'dockerfile'
      ? null
      : (file.entrypoint ?? current.entrypoint ?? defaultEntrypoint(runtime));
  return {
    ok: true,
    config: {
      runtime,
      agentType,
      entrypoint,
      memoryMb: file.memory_mb ?? current.memoryMb,
      regions: [...(file.regions ?? current.regions)],
      schedule,
      keepAlive,
      idleTimeoutMinutes: file.idle_timeout_minutes ?? current.idleTimeoutMinutes,
      buildSecrets: file.build_secrets ?? current.buildSecrets,
    },
  };
}

/**
 * Typed readers of environment variables, for the one config module each
 * component has. Each reader names the variable in its error, so a bad value
 * fails the start with a message that says what to fix.
 */

/** A string variable, or `fallback` when unset or empty. */
export function envString(name: string, fallback: string, env = process.env): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

/** An optional string variable: `undefined` when unset or empty. */
export function envOptional(name: string, env = process.env): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** An integer variable within [min, max], or `fallback` when unset. */
export function envInt(
  name: string,
  fallback: number,
  { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = {},
  env = process.env,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

/** A boolean variable (`true/false/1/0/yes/no`), or `fallback` when unset. */
export function envBool(name: string, fallback: boolean, env = process.env): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

/**
 * Runs a component's config reader; when it throws (a bad or missing
 * variable), prints `<component>: <message>` to stderr and exits with 1, so a
 * refused start reads as one line instead of a stack trace.
 */
export function readConfigOrExit<T>(component: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    process.stderr.write(`${component}: refusing to start: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

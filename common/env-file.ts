/**
 * Shell `KEY='value'` files such as `.dev/env`: rendered single-quoted so any
 * value is safe to `source`, and read back the same way.
 */

/** Renders the variables as shell assignments. */
export function renderEnv(vars: Record<string, string>): string {
  return (
    Object.entries(vars)
      .map(([key, value]) => `${key}='${value.replaceAll("'", `'\\''`)}'`)
      .join('\n') + '\n'
  );
}

/** Reads one variable back from text written by {@link renderEnv}; undefined when absent. */
export function readEnvValue(text: string, key: string): string | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${key}='`) || !line.endsWith("'")) continue;
    return line.slice(key.length + 2, -1).replaceAll(`'\\''`, "'");
  }
  return undefined;
}

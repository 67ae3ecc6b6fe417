/**
 * Shell `export KEY='value'` files such as `.dev/env`: rendered single-quoted
 * so any value is safe to `source`, exported so the programs a sourcing shell
 * starts see them too, and read back the same way.
 */

/** Renders the variables as exported shell assignments. */
export function renderEnv(vars: Record<string, string>): string {
  return (
    Object.entries(vars)
      .map(([key, value]) => `export ${key}='${value.replaceAll("'", `'\\''`)}'`)
      .join('\n') + '\n'
  );
}

/**
 * Reads one variable back from text written by {@link renderEnv} (or by an
 * earlier version, without `export`); undefined when absent.
 */
export function readEnvValue(text: string, key: string): string | undefined {
  for (const raw of text.split('\n')) {
    const line = raw.startsWith('export ') ? raw.slice('export '.length) : raw;
    if (!line.startsWith(`${key}='`) || !line.endsWith("'")) continue;
    return line.slice(key.length + 2, -1).replaceAll(`'\\''`, "'");
  }
  return undefined;
}

/** JSON with literals JSON.stringify cannot spell (1e400, 2^64-1, -0), for the engine's fuzzers. */

/** A JSON literal written as is. */
export class Literal {
  constructor(readonly text: string) {}
}

/** Writes `value` as JSON, {@link Literal}s as their text. */
export function writeJson(value: unknown): string {
  if (value instanceof Literal) return value.text;
  if (Array.isArray(value)) return `[${value.map(writeJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${writeJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

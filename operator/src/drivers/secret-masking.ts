/**
 * Hides an agent's secret values in what it prints, the way CI systems mask
 * secrets in build logs: every occurrence of a value of 4 characters or more
 * becomes `***` before the line is stored. Shorter values are left alone
 * (masking every "a" would hide the log, not the secret).
 */

/** The shortest value masked. */
export const MIN_MASKED_LENGTH = 4;

/** What a masked value is replaced with. */
export const MASK = '***';

/** A function replacing each of `values` (and each line of a multi-line one) in a line with `***`. */
export function secretMasker(values: Iterable<string>): (line: string) => string {
  const needles = new Set<string>();
  for (const value of values) {
    for (const part of [value, ...value.split(/\r?\n/)]) {
      if (part.length >= MIN_MASKED_LENGTH) needles.add(part);
    }
  }
  // Longest first, so a value containing another is masked whole.
  const ordered = [...needles].sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (line) => line;
  return (line) => {
    let masked = line;
    for (const needle of ordered) {
      if (masked.includes(needle)) masked = masked.split(needle).join(MASK);
    }
    return masked;
  };
}

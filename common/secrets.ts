/**
 * The secrets the platform's own processes share among themselves: the
 * internal secret that signs the `/internal` capability tokens (API server and
 * operator) and the engine's API key (engine and vector gateway). Each process
 * reads its secret through {@link requireSecret} and refuses to start without
 * a strong one, so a forgotten variable never falls back to a value an
 * attacker can guess. `npm start` generates both with {@link generateSecret}
 * and passes them as files (`<NAME>_FILE`), so no process environment (which
 * `/proc/<pid>/environ` shows) carries them.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** Fewest characters a secret may have (the generated ones have 43). */
export const MIN_SECRET_LENGTH = 32;

/** Values that were built in or are typed by habit; a secret containing one is refused. */
const KNOWN_WEAK = ['dev-only-internal-secret', 'changeme', 'password', 'secret', 'qwerty'];

/** A new secret: 32 random bytes, base64url (43 characters). */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Why `value` is not a usable secret, or undefined when it is. */
export function secretWeakness(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return 'is not set';
  const lower = value.toLowerCase();
  const known = KNOWN_WEAK.find((weak) => lower.includes(weak));
  if (known) return `contains the well-known value "${known}"`;
  if (value.length < MIN_SECRET_LENGTH) {
    return `is ${value.length} characters long; at least ${MIN_SECRET_LENGTH} are required`;
  }
  if (new Set(value).size < 8) return 'uses fewer than 8 different characters';
  if (isRepetition(value)) return 'is a short pattern repeated';
  if (isRun(value)) return 'is mostly a run of consecutive or equal characters';
  return undefined;
}

/**
 * The secret in the variable `name` of `env`, or in the file that `<name>_FILE`
 * names (surrounding whitespace trimmed); throws, naming the variable and how
 * to make a good one, when it is missing or guessable.
 */
export function requireSecret(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const file = env[`${name}_FILE`];
  if (file && env[name]) throw new Error(`${name} and ${name}_FILE are both set; set one`);
  const value = file ? readSecretFile(name, file) : env[name];
  const weakness = secretWeakness(value);
  if (weakness) {
    throw new Error(
      `${name} ${weakness}: set it to a random value of at least ${MIN_SECRET_LENGTH} characters ` +
        `(for example the output of \`openssl rand -base64 32\`); npm start generates one`,
    );
  }
  return value!;
}

function readSecretFile(name: string, path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new Error(`${name}_FILE names ${path}, which cannot be read: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** True when `value` is a shorter string repeated (`abcabcabc...`). */
function isRepetition(value: string): boolean {
  for (let period = 1; period <= value.length / 2; period++) {
    if (value.slice(period) === value.slice(0, value.length - period)) return true;
  }
  return false;
}

/** True when most neighbouring characters are equal or one code point apart (`abcd...`, `4321...`). */
function isRun(value: string): boolean {
  let steps = 0;
  for (let i = 1; i < value.length; i++) {
    if (Math.abs(value.charCodeAt(i) - value.charCodeAt(i - 1)) <= 1) steps++;
  }
  return steps > (value.length - 1) / 2;
}

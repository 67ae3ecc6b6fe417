/**
 * The rules a secret must meet beyond its request schema: how many an agent
 * may hold on each plan, how large a value and all of an agent's values may
 * be (one Kubernetes Secret holds every value of an agent, and Kubernetes
 * refuses a Secret over 1 MiB), and which keys are the platform's own.
 */

/** Keys usable as environment variable names: a letter or `_`, then letters, digits and `_`. */
export const SECRET_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The longest key, as the contract says. Kubernetes data keys stop at 253
 * characters: a longer key is stored under a derived data key
 * (crds/src/secret-data-keys.ts).
 */
export const MAX_KEY_LENGTH = 255;

/** The longest description. */
export const MAX_DESCRIPTION_LENGTH = 512;

/** The largest value, in UTF-8 bytes. */
export const MAX_VALUE_BYTES = 64 * 1024;

/**
 * The most all values of one agent may hold together, in UTF-8 bytes: half of
 * Kubernetes' 1 MiB per Secret, leaving room for keys, base64 and metadata.
 */
export const MAX_TOTAL_VALUE_BYTES = 512 * 1024;

/** Variables the platform sets in every agent process: a secret may not take their names. */
export function isReservedKey(key: string): boolean {
  return key.toUpperCase().startsWith('SVC_') || key === 'PORT';
}

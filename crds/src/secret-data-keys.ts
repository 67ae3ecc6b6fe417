/**
 * How a secret's key maps to the data key of the Kubernetes Secret holding its
 * value. The contract allows keys of up to 255 characters, Kubernetes data
 * keys of up to 253: a longer key is stored under `svc-long-<hash>`, which no
 * secret key can be (they are environment variable names, without `-`). The
 * Secret records the mapping (ANNOTATIONS.secretEnvNames) and the Agent the
 * long keys (ANNOTATIONS.longSecretKeys), so both drivers give the process the
 * variable under its own name.
 */
import { createHash } from 'node:crypto';

/** The longest data key Kubernetes accepts in a Secret. */
export const MAX_DATA_KEY_LENGTH = 253;

const DERIVED_PREFIX = 'svc-long-';

/** The data key holding the value of secret `key`. */
export function secretDataKey(key: string): string {
  if (key.length <= MAX_DATA_KEY_LENGTH) return key;
  return `${DERIVED_PREFIX}${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}

/** True for a data key derived from a long secret key. */
export function isDerivedDataKey(dataKey: string): boolean {
  return dataKey.startsWith(DERIVED_PREFIX);
}

/** Parses a JSON annotation written by the platform; anything else reads as `fallback`. */
export function parseJsonAnnotation<T>(raw: string | undefined, fallback: T): T {
  if (!raw) return fallback;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return fallback;
  }
}

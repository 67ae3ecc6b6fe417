/**
 * API key text: `svc_live_` or `svc_test_` followed by 43 base64url characters
 * (32 random bytes). Keys are looked up by their SHA-256: they carry 256 bits
 * of entropy, so a fast hash is as safe as a slow one and keeps every request
 * to one indexed read.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Environment } from './model.js';

const KEY_PATTERN = /^svc_(live|test)_([A-Za-z0-9_-]{43})$/;

/** A freshly minted key: the text (shown once) and what is stored of it. */
export interface MintedKey {
  text: string;
  hash: string;
  prefix: string;
  environment: Environment;
}

/** Mints a key for `environment`. */
export function mintKey(environment: Environment): MintedKey {
  const text = `svc_${environment}_${randomBytes(32).toString('base64url')}`;
  return { text, hash: hashKey(text), prefix: text.slice(0, 13), environment };
}

/** The stored form of a key's text. */
export function hashKey(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The environment a key addresses, or null when the text is not a well-formed key. */
export function parseKey(text: string): Environment | null {
  const match = KEY_PATTERN.exec(text);
  return match ? (match[1] as Environment) : null;
}

/**
 * The signed-in API key, kept in sessionStorage only: it lasts as long as the
 * browser tab and is never written to a URL, a cookie or localStorage.
 */
import type { ApiClient } from './api/client.js';
import type { Me } from './api/types.js';

const KEY = 'svc.dashboard.apiKey';

/** The key of this tab's session, or null. */
export function sessionKey(): string | null {
  return sessionStorage.getItem(KEY);
}

/** Keeps `key` for this tab's session. */
export function keepSessionKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

/** Forgets the key (sign-out). */
export function clearSessionKey(): void {
  sessionStorage.removeItem(KEY);
}

/** What the signed-in pages get: the API client of the key, the account, and sign-out. */
export interface Session {
  api: ApiClient;
  me: Me;
  signOut: () => void;
}

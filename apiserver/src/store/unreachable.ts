/**
 * Whether an error means MongoDB could not be reached (no server to select,
 * a connection that failed or timed out), as opposed to a query it refused.
 * Such a failure is temporary from a caller's point of view: the contract's
 * 503 SERVICE_UNAVAILABLE, which a client may retry, not a 500.
 */
import { MongoNetworkError, MongoServerSelectionError } from 'mongodb';

/** True when `err`, or an error it was caused by, is a MongoDB connectivity failure. */
export function isDatabaseUnreachable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof MongoNetworkError || e instanceof MongoServerSelectionError) return true;
  }
  return false;
}

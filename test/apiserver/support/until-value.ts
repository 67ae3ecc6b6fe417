/** Polling for a condition the tests of the resource caches wait on (in memory: every 25 ms). */
import { waitFor } from '../../harness/wait.js';

/** Resolves with `check`'s first truthy value; throws naming `what` after `timeoutMs`. */
export function untilValue<T>(
  what: string,
  check: () => T | undefined | false,
  timeoutMs = 15_000,
): Promise<T> {
  return waitFor(what, () => check() || undefined, { timeoutMs, everyMs: 25 });
}

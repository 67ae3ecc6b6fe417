/** Polling for a condition the tests of the resource caches wait on. */
import { setTimeout as sleep } from 'node:timers/promises';

/** Resolves with `check`'s first truthy value, polled every 25 ms; throws naming `what` after `timeoutMs`. */
export async function untilValue<T>(
  what: string,
  check: () => T | undefined | false,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

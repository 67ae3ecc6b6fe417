// @ts-check
/**
 * Waiting for a sandbox's network before the user's code runs. The local driver lets a
 * sandboxed service's process start while pasta still wires its network namespace (the two
 * overlap, so a wake from zero waits on neither alone). It names a file in SVC_AWAIT_NETWORK
 * that it creates once pasta is done; the runner loads the app only once that file exists, so
 * module-level code that connects somewhere (the internet, the platform's front doors) finds the
 * network as it always has.
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** The most the runner waits; past it, the app is loaded anyway and the wait is reported. */
export const AWAIT_NETWORK_MS = 10_000;

/** Resolves once the file SVC_AWAIT_NETWORK names exists; at once when it names none. */
export async function awaitNetwork() {
  const ready = process.env.SVC_AWAIT_NETWORK;
  if (!ready) return;
  const deadline = Date.now() + AWAIT_NETWORK_MS;
  while (!existsSync(ready)) {
    if (Date.now() > deadline) {
      console.error(
        `svc-runner: the sandbox's network was not up after ${AWAIT_NETWORK_MS / 1000} s; loading the app anyway`,
      );
      return;
    }
    await sleep(2);
  }
}

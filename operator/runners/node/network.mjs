// @ts-check
/**
 * Waiting for a sandbox's network before the user's code runs. The local driver lets a
 * sandboxed service's process start while pasta still wires its network namespace (the two
 * overlap, so a wake from zero waits on neither alone) and says so with SVC_AWAIT_NETWORK=1;
 * the runner then loads the app only once the namespace has its default route, so module-level
 * code that connects somewhere finds the network as it always has.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** The most the runner waits; past it, the app is loaded anyway and the wait is reported. */
export const AWAIT_NETWORK_MS = 10_000;

/**
 * Whether the route table (`/proc/net/route`'s format) has a default route.
 * @param {string} routeTable
 */
export function hasDefaultRoute(routeTable = '/proc/net/route') {
  try {
    const lines = readFileSync(routeTable, 'ascii').split('\n').slice(1);
    return lines.some((line) => line.trim().split(/\s+/)[1] === '00000000');
  } catch {
    return false;
  }
}

/**
 * Resolves once the network namespace has a default route, when the driver asked for it.
 * @param {string} routeTable
 */
export async function awaitNetwork(routeTable = '/proc/net/route') {
  if (process.env.SVC_AWAIT_NETWORK !== '1') return;
  const deadline = Date.now() + AWAIT_NETWORK_MS;
  while (!hasDefaultRoute(routeTable)) {
    if (Date.now() > deadline) {
      console.error(
        `svc-runner: the sandbox's network was not up after ${AWAIT_NETWORK_MS / 1000} s; loading the app anyway`,
      );
      return;
    }
    await sleep(2);
  }
}

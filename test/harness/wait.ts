/**
 * How tests wait for something to happen: `waitFor` re-checks when the thing itself says it
 * changed (a Kubernetes watch on the objects the check reads, through `wakeOn`) and otherwise
 * only now and then, and fails after its deadline with a message naming what never happened and
 * the last value seen. Never a fixed sleep: a test that must see that something did *not*
 * happen waits for the event that would have done it (a reconcile: `reconcileNow` on the
 * operator's manager), then looks.
 */
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, PLURALS } from '../../crds/src/index.js';

/** Subscribes `changed` to a source of change events; returns the unsubscribe. */
export type ChangeSource = (changed: () => void) => () => void;

/** Options of {@link waitFor}. */
export interface WaitOptions {
  /** Fails after this long (default 30 s). */
  timeoutMs?: number;
  /** Re-checks at least this often even without an event (default 150 ms; 1 s with `wakeOn`). */
  everyMs?: number;
  /** Re-checks at once whenever this source reports a change. */
  wakeOn?: ChangeSource;
  /** What the timeout reports as last seen (default: the check's last pending answer). */
  lastSeen?: () => unknown;
}

/** A check's answer: a value ends the wait; `undefined`, `false` or `null` mean not yet. */
type Pending = undefined | false | null;

/**
 * Resolves with `check`'s first value that is not pending. A check that throws ends the wait
 * with its error: one that expects a passing error (404 before a thing exists) catches it.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Pending | Promise<T | Pending>,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const everyMs = options.everyMs ?? (options.wakeOn ? 1_000 : 150);
  const deadline = Date.now() + timeoutMs;
  let wake: (() => void) | undefined;
  // Set by an event that comes while the check runs: check again at once.
  let changed: boolean;
  const unsubscribe = options.wakeOn?.(() => {
    changed = true;
    wake?.();
  });
  let last: unknown;
  try {
    for (;;) {
      changed = false;
      const value = await check();
      if (value !== undefined && value !== false && value !== null) return value;
      last = value;
      const left = deadline - Date.now();
      if (left <= 0) {
        const seen = options.lastSeen ? options.lastSeen() : last;
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${JSON.stringify(seen)?.slice(0, 800)}`,
        );
      }
      if (changed) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(everyMs, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    unsubscribe?.();
  }
}

/**
 * Change events of the Kubernetes collection at `path` (for example
 * `/apis/svc.dev/v1alpha1/namespaces/<ns>/agentdeployments`): a watch that reports every added,
 * modified or deleted object, restarted if the server ends it, stopped by the unsubscribe.
 */
export function kubeChanges(kc: KubeConfig, path: string): ChangeSource {
  return (changed) => {
    let stopped = false;
    let abort: AbortController | undefined;
    const start = () => {
      if (stopped) return;
      new Watch(kc)
        .watch(
          path,
          { allowWatchBookmarks: false },
          () => changed(),
          () => {
            // The server ended the watch (its timeout) or the connection broke: watch again.
            if (!stopped) setTimeout(start, 100);
          },
        )
        .then(
          (controller) => {
            abort = controller;
            if (stopped) controller.abort();
          },
          () => {
            if (!stopped) setTimeout(start, 100);
          },
        );
    };
    start();
    return () => {
      stopped = true;
      abort?.abort();
    };
  };
}

/** Change events of the platform's custom resources of `kind` in `namespace` (an account's). */
export function resourceChanges(
  kc: KubeConfig,
  kind: keyof typeof PLURALS,
  namespace: string,
): ChangeSource {
  return kubeChanges(
    kc,
    `/apis/${API_GROUP}/${API_VERSION}/namespaces/${namespace}/${PLURALS[kind]}`,
  );
}

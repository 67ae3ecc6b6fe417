/**
 * One firing of a schedule on the local driver: a POST to the agent's run
 * route with its own key, retried the way the cluster's CronJob retries its
 * trigger container (`curl -f`, `backoffLimit: 2`): any refusal or an
 * unreachable API is tried twice more, after the answer's Retry-After when it
 * has one, else 10 s and 20 s. (A firing in the instant a version becomes
 * active may meet 409 AGENT_NOT_DEPLOYED before the agent's status says so.)
 */

/** What a firing ended with: `ok`, or why the run was not started. */
export type FiringOutcome = { ok: true } | { ok: false; reason: string; final: true };

/** The HTTP call of one attempt; resolves with the response or rejects when unreachable. */
export type FireAttempt = () => Promise<Response>;

/** Retries after the first attempt, as the CronJob's backoffLimit. */
export const FIRING_RETRIES = 2;
const BASE_BACKOFF_MS = 10_000;
const MAX_WAIT_MS = 60_000;

/** How long to wait before trying again after attempt number `attempt` (0: the first) was refused. */
export function retryDelayMs(retryAfter: string | null, attempt: number): number {
  const seconds = Number(retryAfter);
  if (retryAfter !== null && Number.isFinite(seconds) && seconds >= 0)
    return Math.min(seconds * 1000, MAX_WAIT_MS);
  return Math.min(BASE_BACKOFF_MS * 2 ** attempt, MAX_WAIT_MS);
}

/** Fires once, retrying retriable refusals; reports each refusal through `onRefused`. */
export async function fireSchedule(
  attempt: FireAttempt,
  onRefused: (reason: string, final: boolean) => void,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms).unref()),
): Promise<FiringOutcome> {
  for (let n = 0; ; n++) {
    let retryAfter: string | null = null;
    let reason: string;
    try {
      const res = await attempt();
      if (res.ok) return { ok: true };
      reason = `scheduled run refused: ${res.status} ${await res.text()}`;
      retryAfter = res.headers.get('retry-after');
    } catch (err) {
      reason = `scheduled run failed to start: ${String(err)}`;
    }
    const final = n >= FIRING_RETRIES;
    onRefused(reason, final);
    if (final) return { ok: false, reason, final };
    await sleep(retryDelayMs(retryAfter, n));
  }
}

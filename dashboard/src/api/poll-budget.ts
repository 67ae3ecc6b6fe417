/**
 * How often the dashboard polls, given the key's per-minute request budget
 * (the control plane's `X-RateLimit-Limit`): the pages poll at their base
 * rate on budgets of 150 a minute or more, and proportionally slower below
 * (the free plan's 60: two and a half times slower), so an open agent page
 * (about 100 requests a minute at the base rate) never spends the budget that
 * the user's own actions need.
 */

/** The budget at which pages poll at their base rate. */
export const BASE_RATE_BUDGET = 150;

/** The delay between polls for a page whose base delay is `baseMs` (`limit` null: unlimited). */
export function pollDelay(baseMs: number, limit: number | null): number {
  if (limit === null || limit <= 0) return baseMs;
  return Math.round(baseMs * Math.max(1, BASE_RATE_BUDGET / limit));
}

/** The budget a response announces, or null when it says none (unlimited, or not sent). */
export function budgetFrom(header: string | null): number | null {
  if (header === null) return null;
  const limit = Number(header);
  return Number.isFinite(limit) && limit > 0 ? limit : null;
}

/** Usage records as the API names them (snake_case, ISO dates). */
import type { UsageEventDoc, UsageKind } from './model.js';
import type { LimitUse } from './usage-limits.js';
import type { UsageEventsPage, UsageSummary } from './usage-service.js';
import type { UsageTotals } from './usage-store.js';

/** Totals of one kind. */
export interface UsageTotalsRecord {
  events: number;
  count: number;
  seconds: number;
  mb_seconds: number;
  bytes: number;
  peak_storage_mb: number;
}

/** Shapes totals. */
export function presentTotals(t: UsageTotals): UsageTotalsRecord {
  return {
    events: t.events,
    count: t.count,
    seconds: round(t.seconds),
    mb_seconds: round(t.mbSeconds),
    bytes: t.bytes,
    peak_storage_mb: round(t.peakStorageMb),
  };
}

/** Shapes a summary. */
export function presentSummary(s: UsageSummary) {
  return {
    account_id: s.accountId,
    plan: s.plan,
    period: { from: s.from.toISOString(), to: s.to.toISOString(), current: s.current },
    totals: mapTotals(s.totals),
    agents: s.agents.map((a) => ({ agent_id: a.agentId, totals: mapTotals(a.totals) })),
    limits: s.limits.map((l: LimitUse) => ({
      metric: l.metric,
      used: round(l.used),
      limit: l.limit,
      exceeded: l.exceeded,
    })),
  };
}

/** Shapes one event. */
export function presentEvent(e: UsageEventDoc) {
  return {
    id: e._id,
    agent_id: e.agentId,
    deployment_id: e.deploymentId,
    kind: e.kind,
    started_at: e.startedAt.toISOString(),
    ended_at: e.at.toISOString(),
    count: e.count,
    seconds: round(e.seconds),
    memory_mb: e.memoryMb,
    mb_seconds: round(e.mbSeconds),
    bytes: e.bytes,
    storage_mb: round(e.storageMb),
  };
}

/** Shapes a page; the cursor is opaque to clients. */
export function presentEventsPage(page: UsageEventsPage) {
  return {
    agent_id: page.agentId,
    events: page.events.map(presentEvent),
    next_cursor: page.next ? encodeCursor(page.next) : null,
  };
}

/** The cursor of a position. */
export function encodeCursor(position: { at: Date; id: string }): string {
  return Buffer.from(`${position.at.getTime()}|${position.id}`).toString('base64url');
}

/** The position of a cursor, or null when it is not one this server made. */
export function decodeCursor(cursor: string): { at: Date; id: string } | null {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^(\d{1,15})\|([\w:.-]{1,200})$/.exec(text);
  return match ? { at: new Date(Number(match[1])), id: match[2]! } : null;
}

function mapTotals(totals: Partial<Record<UsageKind, UsageTotals>>) {
  return Object.fromEntries(
    Object.entries(totals).map(([kind, t]) => [kind, presentTotals(t as UsageTotals)]),
  );
}

/** Seconds and MB-seconds to the millisecond: sums of floats print without noise. */
function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/**
 * Reading a collection's payloads for analyze and conformance: pages of the
 * engine's scroll (ids and payloads, never vectors), in id order, so a sample
 * is a prefix of the collection. A scan stops at the end of the collection,
 * at the number of points asked for, or at a time budget, and says which.
 */
import type { EngineClient } from '../engine-client.js';
import { engineFailure } from '../engine-errors.js';

/** A point id as the engine returns it. */
export type PointId = number | string;

/** One point's id and payload, with the internal `__svc_` keys removed. */
export interface PointPayload {
  id: PointId;
  payload: Record<string, unknown>;
}

/** One page of a scan and where the next starts (null at the end of the collection). */
export interface Page {
  points: PointPayload[];
  next: PointId | null;
}

/** Reads `limit` points starting at `offset` (null: the first). */
export type PageReader = (offset: PointId | null, limit: number) => Promise<Page>;

/** Why a scan stopped. */
export type StopReason = 'end_of_collection' | 'sample_size' | 'time_budget';

/** How far a scan went: `exact` only when it reached the end of the collection. */
export interface ScanOutcome {
  exact: boolean;
  stopped_because: StopReason;
  points_scanned: number;
  elapsed_ms: number;
}

/** Bounds of one scan. */
export interface ScanBounds {
  /** Points to read at most (Infinity for a full scan). */
  maxPoints: number;
  /** Stop starting new pages once this much time has passed. */
  budgetMs: number;
  /** Points per engine request. */
  pageSize: number;
  now?: () => number;
}

/** Reads pages until the end, `maxPoints` or the time budget, handing each point to `visit`. */
export async function scanPoints(
  read: PageReader,
  bounds: ScanBounds,
  visit: (point: PointPayload) => void,
): Promise<ScanOutcome> {
  const now = bounds.now ?? (() => performance.now());
  const started = now();
  let offset: PointId | null = null;
  let scanned = 0;
  const outcome = (exact: boolean, stopped_because: StopReason): ScanOutcome => ({
    exact,
    stopped_because,
    points_scanned: scanned,
    elapsed_ms: Math.round(now() - started),
  });
  for (;;) {
    const limit = Math.min(bounds.pageSize, bounds.maxPoints - scanned);
    const page = await read(offset, limit);
    for (const point of page.points.slice(0, limit)) visit(point);
    scanned += Math.min(page.points.length, limit);
    if (page.next === null) return outcome(true, 'end_of_collection');
    if (scanned >= bounds.maxPoints) return outcome(false, 'sample_size');
    // Checked between pages: at least one page is always read.
    if (now() - started >= bounds.budgetMs) return outcome(false, 'time_budget');
    offset = page.next;
  }
}

/** Payload keys of the gateway itself; schemas never see them. */
const INTERNAL_PREFIX = '__svc_';

/** `payload` without the `__svc_` keys (the attested pair included). */
export function withoutInternalKeys(payload: unknown): Record<string, unknown> {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (!key.startsWith(INTERNAL_PREFIX)) out[key] = value;
  }
  return out;
}

/** A page reader over the engine's scroll of one engine collection, optionally filtered. */
export function engineScroll(
  engine: EngineClient,
  engineName: string,
  filter?: unknown,
): PageReader {
  return async (offset, limit) => {
    const res = await engine.send('POST', `/collections/${engineName}/points/scroll`, {
      limit,
      with_payload: true,
      with_vector: false,
      ...(offset === null ? {} : { offset }),
      ...(filter === undefined ? {} : { filter }),
    });
    if (res.status >= 400) throw engineFailure(res);
    const body = JSON.parse(res.text) as {
      result?: { points?: { id: PointId; payload?: unknown }[]; next_page_offset?: PointId | null };
    };
    return {
      points: (body.result?.points ?? []).map((p) => ({
        id: p.id,
        payload: withoutInternalKeys(p.payload),
      })),
      next: body.result?.next_page_offset ?? null,
    };
  };
}

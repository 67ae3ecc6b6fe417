/**
 * Pages of an agent's log read chunk by chunk (log-chunks.ts): forward from
 * an `after_id`, backward from a `before_id` or from the newest line. Each
 * chunk is one lookup by key; a page reads at most MAX_CHUNKS_PER_PAGE of
 * them, so a filter that matches little costs a bounded read and a cursor
 * that moves past what it examined.
 */
import { lineId, splitLineId, type ChunkLine, type LogItem } from './log-chunks.js';

/**
 * Chunks one page reads at most (past the chunk it starts in), unless its limit is higher:
 * every chunk holds a line, so a read with no filter always fills its page.
 */
export const MAX_CHUNKS_PER_PAGE = 64;
/** Chunks looked up at once ahead of the one being read, once a read has gone that far. */
const MAX_READ_AHEAD = 16;

/** An agent's stored chunks. */
export interface ChunkSource {
  /** The lines of chunk `n`, or null when it is not stored. */
  chunk(n: number): Promise<readonly ChunkLine[] | null>;
  /** The oldest chunk retention has not removed. */
  first(): Promise<number>;
  /** The newest stored chunk (below `first()` when there is none). */
  last(): Promise<number>;
}

/** A page and the cursors around it (see LogPage in log-store.ts). */
export interface ChunkPage {
  items: LogItem[];
  nextAfterId: number;
  nextBeforeId: number | null;
  hasMore: boolean;
}

type Accept = (line: ChunkLine) => boolean;

/**
 * Reads ahead of chunk `from` in direction `step`: the chunks after it are looked up
 * `window` at a time, the window doubling from 1 as the read goes on, so a follower at
 * the end of the log costs one lookup past it and a long read keeps several in flight.
 */
function readAhead(source: ChunkSource, step: 1 | -1) {
  let window = 1;
  return (from: number): Promise<readonly ChunkLine[] | null> => {
    for (let k = 1; k < window; k++) void source.chunk(from + k * step);
    window = Math.min(window * 2, MAX_READ_AHEAD);
    return source.chunk(from);
  };
}

/** A source that looks each chunk up once, for the reads of one page. */
export function memoized(source: ChunkSource): ChunkSource {
  const seen = new Map<number, Promise<readonly ChunkLine[] | null>>();
  return {
    chunk: (n) => {
      let found = seen.get(n);
      if (!found) {
        found = n < 1 ? Promise.resolve(null) : source.chunk(n);
        // A lookup made ahead and never awaited must not fail the process.
        found.catch(() => undefined);
        seen.set(n, found);
      }
      return found;
    },
    first: () => source.first(),
    last: () => source.last(),
  };
}

/**
 * The oldest `limit` accepted lines with an id above `afterId`. The next
 * cursor is the last line examined (the last item, or a later line the
 * filter left out), so a follower never examines a line twice.
 */
export async function readForward(
  raw: ChunkSource,
  afterId: number,
  limit: number,
  accept: Accept,
): Promise<ChunkPage> {
  const source = memoized(raw);
  const next = readAhead(source, 1);
  const cap = Math.max(MAX_CHUNKS_PER_PAGE, limit);
  const cursor = splitLineId(afterId);
  let chunk = cursor.chunk;
  let start = cursor.index + 1;
  let lines = await source.chunk(chunk);
  if (!lines) {
    const first = await source.first();
    if (first > chunk) {
      chunk = first;
      start = 0;
      lines = await source.chunk(chunk);
    }
  }
  const items: LogItem[] = [];
  let examined = afterId;
  let more = false;
  for (let read = 1; lines && !more; read++) {
    for (let i = start; i < lines.length; i++) {
      if (accept(lines[i]!)) {
        if (items.length === limit) {
          more = true;
          break;
        }
        items.push({ ...lines[i]!, id: lineId(chunk, i) });
      }
      examined = lineId(chunk, i);
    }
    if (more) break;
    chunk += 1;
    start = 0;
    lines = await next(chunk);
    if (lines && read >= cap) more = true;
    if (more) break;
  }
  const older = await readBackward(source, items[0]?.id ?? afterId + 1, 1, accept);
  return {
    items,
    nextAfterId: more && items.length === limit ? items.at(-1)!.id : examined,
    nextBeforeId: older.items.length > 0 || older.hasMore ? (items[0]?.id ?? afterId + 1) : null,
    hasMore: more,
  };
}

/**
 * The newest `limit` accepted lines with an id below `beforeId` (the newest
 * of all without it), returned oldest first.
 */
export async function readBackward(
  raw: ChunkSource,
  beforeId: number | undefined,
  limit: number,
  accept: Accept,
): Promise<ChunkPage> {
  const source = memoized(raw);
  const next = readAhead(source, -1);
  const cap = Math.max(MAX_CHUNKS_PER_PAGE, limit);
  let chunk: number;
  let end: number;
  if (beforeId === undefined) {
    chunk = await source.last();
    end = Infinity;
  } else {
    ({ chunk, index: end } = splitLineId(beforeId));
  }
  let lines = await source.chunk(chunk);
  if (!lines && beforeId !== undefined && chunk >= 1) {
    // A cursor past the newest chunk reads from the newest line.
    const last = await source.last();
    if (last < chunk) {
      chunk = last;
      end = Infinity;
      lines = await source.chunk(chunk);
    }
  }
  const newestFirst: LogItem[] = [];
  let lowest: number | null = null;
  let overflow = false;
  let capped = false;
  for (let read = 1; lines; read++) {
    for (let i = Math.min(end, lines.length) - 1; i >= 0; i--) {
      if (accept(lines[i]!)) {
        if (newestFirst.length === limit) {
          overflow = true;
          break;
        }
        newestFirst.push({ ...lines[i]!, id: lineId(chunk, i) });
      }
      lowest = lineId(chunk, i);
    }
    if (overflow) break;
    chunk -= 1;
    end = Infinity;
    lines = await next(chunk);
    if (lines && read >= cap) capped = true;
    if (capped) break;
  }
  const items = newestFirst.reverse();
  return {
    items,
    nextAfterId: items.at(-1)?.id ?? 0,
    nextBeforeId: overflow ? items[0]!.id : capped ? lowest : null,
    hasMore: overflow || capped,
  };
}

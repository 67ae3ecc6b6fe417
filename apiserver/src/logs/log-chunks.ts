/**
 * Agent logs are stored as chunks: the lines of one append, at most
 * MAX_CHUNK_LINES of them, under the agent's next chunk number. Chunk numbers
 * of an agent run 1, 2, 3, ... without a hole (a writer takes number n only
 * once n - 1 is stored, see log-store.ts), and retention removes only the
 * oldest ones, so the stored chunks of an agent are always one unbroken range
 * [first, last]. That is what lets a reader find every chunk by its key alone,
 * a lookup every MongoDB-wire server answers from its primary key (FerretDB's
 * SQLite backend pushes down nothing else), and lets a follower see a chunk as
 * soon as it is stored: every chunk before it is already there.
 *
 * A line's id is `chunk * ID_SPAN + index`: integers that grow in the order
 * lines were stored, the API's keyset cursor.
 */
import type { Environment } from '../accounts/model.js';
import type { LogLevel, LogStream } from './log-lines.js';

/** Ids per chunk; a chunk holds fewer lines (MAX_CHUNK_LINES). */
export const ID_SPAN = 1024;
/** Lines per chunk. */
export const MAX_CHUNK_LINES = 1000;
/** Message bytes per chunk (a document stays well under MongoDB's 16 MiB). */
export const MAX_CHUNK_BYTES = 1024 * 1024;

/** Whose log: one agent of one tenant. */
export interface LogOwner {
  accountId: string;
  environment: Environment;
  agentId: string;
}

/** A line as stored in its chunk. */
export interface ChunkLine {
  timestamp: Date;
  stream: LogStream;
  level: LogLevel;
  message: string;
  deploymentId: string | null;
}

/** One stored chunk. */
export interface LogChunkDoc extends LogOwner {
  /** {@link chunkDocId} of the owner and `chunk`. */
  _id: string;
  chunk: number;
  /** The newest line timestamp: the chunk expires with it. */
  newest: Date;
  lines: ChunkLine[];
}

/**
 * Where an agent's chunks end or start, two documents per agent: `last` under
 * {@link ownerKey} (raised by every append: a hint, checked by lookups) and `first` under
 * {@link firstDocId} (raised only by the retention purge). Apart, because FerretDB applies
 * no update atomically: an append rewriting a document that also held `first` could put
 * back the value a purge had just raised.
 */
export interface LogHeadDoc {
  /** {@link ownerKey} of the agent, or {@link firstDocId} of it. */
  _id: string;
  /** A chunk known to be stored: the last one, or one before it. */
  last?: number;
  /** The oldest chunk retention has not removed (1 until it removes one). */
  first?: number;
}

/** The `_id` of the document holding an agent's `first`. */
export function firstDocId(key: string): string {
  return `${key}#first`;
}

/** One line with its id, as read. */
export interface LogItem extends ChunkLine {
  id: number;
}

/** The key of an agent's log. */
export function ownerKey(owner: LogOwner): string {
  return JSON.stringify([owner.accountId, owner.environment, owner.agentId]);
}

/** The `_id` of an agent's chunk `chunk`. */
export function chunkDocId(key: string, chunk: number): string {
  return `${key}#${chunk}`;
}

/** The id of line `index` of chunk `chunk`. */
export function lineId(chunk: number, index: number): number {
  return chunk * ID_SPAN + index;
}

/** The chunk and index an id names (chunk 0 for ids below the first chunk's). */
export function splitLineId(id: number): { chunk: number; index: number } {
  return { chunk: Math.floor(id / ID_SPAN), index: id % ID_SPAN };
}

/**
 * Cuts a list of lines into chunks of at most MAX_CHUNK_LINES lines and
 * MAX_CHUNK_BYTES message bytes (a line is never split; one line of more
 * bytes than that is a chunk of its own).
 */
export function cutIntoChunks<T extends { message: string }>(lines: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line.message);
    if (
      current.length > 0 &&
      (current.length >= MAX_CHUNK_LINES || bytes + size > MAX_CHUNK_BYTES)
    ) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(line);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

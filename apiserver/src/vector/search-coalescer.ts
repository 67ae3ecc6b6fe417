/**
 * Joins searches (and queries) of one engine collection that arrive together
 * into one batch request to the engine, and splits its answer back into one
 * answer per caller. About half of what a single search costs the engine is
 * per HTTP request, and so is much of what forwarding it costs the gateway.
 *
 * Requests are sent as they come while fewer than `maxInFlight` requests of
 * their collection are at the engine; beyond that they gather, and go as one
 * batch when a slot frees (or after `maxHoldMs`, so one slow search never
 * holds the others back for long). A request that finds a free slot waits
 * only for the end of the current turn of the event loop.
 *
 * A joined request answers exactly what it would have answered alone:
 * - only requests for the same engine path and query string are joined, and
 *   the engine name is tenant-scoped, so tenants never share a batch;
 * - a body joins only when its JSON structure is whole (one object, nothing
 *   after it), so no body can change where another one starts or ends;
 * - when the batch fails in any way but the transport (an invalid request in
 *   it, an answer over the size cap, an answer of the wrong shape), every
 *   request is sent again on its own and gets its own answer or error.
 * Only the `time` an answer reports is the batch's.
 */
import { ResponseTooLarge } from '../errors/catalogue.js';
import type { EngineResponse } from './engine-client.js';
import { arrayElements, pointMembers } from './points/point-members.js';

/** How the coalescer sends a request to the engine. */
export type EngineSend = (
  method: string,
  path: string,
  body: Buffer,
  query: string,
) => Promise<EngineResponse>;

/** Bounds of the joining. */
export interface CoalescerLimits {
  /** Most requests in one batch. */
  maxBatch: number;
  /** A body larger than this is sent on its own. */
  maxBodyBytes: number;
  /** A batch is closed once its bodies reach this many bytes. */
  maxBatchBytes: number;
  /** Requests (single or batch) of one collection at the engine before others gather. */
  maxInFlight: number;
  /** Longest a gathered batch waits for a free slot. */
  maxHoldMs: number;
}

const LIMITS: CoalescerLimits = {
  maxBatch: 64,
  maxBodyBytes: 256 * 1024,
  maxBatchBytes: 4 * 1024 * 1024,
  maxInFlight: 2,
  maxHoldMs: 5,
};

/** One caller waiting for its answer. */
interface Waiting {
  body: Buffer;
  resolve: (res: EngineResponse) => void;
  reject: (err: unknown) => void;
}

/** Requests gathered for one batch. */
interface Batch {
  waiting: Waiting[];
  bytes: number;
}

/** One engine path and query string: its requests at the engine and those gathered. */
interface Channel {
  path: string;
  batchPath: string;
  query: string;
  inFlight: number;
  queue: Batch[];
  /** A dispatch is due at the end of this turn of the event loop. */
  due: boolean;
  /** The timer that sends gathered batches despite full slots. */
  hold: NodeJS.Timeout | null;
}

const OPEN = Buffer.from('{"searches":[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');
const RESULT_OPEN = '{"result":';

/** Joins concurrent searches of one engine collection into batch requests. */
export class SearchCoalescer {
  private readonly channels = new Map<string, Channel>();
  private readonly limits: CoalescerLimits;

  constructor(
    private readonly send: EngineSend,
    limits: Partial<CoalescerLimits> = {},
  ) {
    this.limits = { ...LIMITS, ...limits };
  }

  /**
   * Sends `body` as a POST to `path` (a search or query route of one engine
   * collection), alone or as one entry of a POST to `batchPath` (its batch
   * route). Answers what the engine answers to `path` alone, errors included.
   */
  search(path: string, batchPath: string, body: Buffer, query: string): Promise<EngineResponse> {
    if (body.length > this.limits.maxBodyBytes || !isWholeObject(body)) {
      return this.send('POST', path, body, query);
    }
    const key = `${path}?${query}`;
    let channel = this.channels.get(key);
    if (!channel) {
      channel = { path, batchPath, query, inFlight: 0, queue: [], due: false, hold: null };
      this.channels.set(key, channel);
    }
    const batch = this.openBatch(channel);
    batch.bytes += body.length;
    const answer = new Promise<EngineResponse>((resolve, reject) => {
      batch.waiting.push({ body, resolve, reject });
    });
    this.schedule(key, channel);
    return answer;
  }

  /** The channel's last batch, or a new one when that is full. */
  private openBatch(channel: Channel): Batch {
    const last = channel.queue[channel.queue.length - 1];
    const { maxBatch, maxBatchBytes } = this.limits;
    if (last && last.waiting.length < maxBatch && last.bytes < maxBatchBytes) return last;
    const batch: Batch = { waiting: [], bytes: 0 };
    channel.queue.push(batch);
    return batch;
  }

  /** Arranges for the queue to be sent: at the end of this turn if a slot is free, else on hold. */
  private schedule(key: string, channel: Channel): void {
    if (channel.queue.length === 0) return;
    if (channel.inFlight < this.limits.maxInFlight) {
      if (channel.due) return;
      channel.due = true;
      setImmediate(() => {
        channel.due = false;
        this.dispatch(key, channel, false);
      });
    } else {
      channel.hold ??= setTimeout(() => {
        channel.hold = null;
        this.dispatch(key, channel, true);
      }, this.limits.maxHoldMs);
    }
  }

  /** Sends queued batches while slots are free (all of them when `force`). */
  private dispatch(key: string, channel: Channel, force: boolean): void {
    while (channel.queue.length > 0 && (force || channel.inFlight < this.limits.maxInFlight)) {
      const batch = channel.queue.shift()!;
      channel.inFlight++;
      void this.sendBatch(channel, batch.waiting).finally(() => {
        channel.inFlight--;
        this.settle(key, channel);
      });
    }
    if (channel.queue.length === 0 && channel.hold) {
      clearTimeout(channel.hold);
      channel.hold = null;
    }
  }

  /** After an answer: sends what gathered meanwhile, or forgets an idle channel. */
  private settle(key: string, channel: Channel): void {
    if (channel.queue.length > 0) this.schedule(key, channel);
    else if (channel.inFlight === 0 && !channel.due) this.channels.delete(key);
  }

  /** Sends one batch (a single request as itself) and answers each of its callers. */
  private async sendBatch(channel: Channel, waiting: Waiting[]): Promise<void> {
    const { batchPath, query } = channel;
    if (waiting.length === 1) return this.sendAlone(channel, waiting[0]!);
    const parts: Buffer[] = [OPEN];
    waiting.forEach((w, i) => parts.push(...(i === 0 ? [w.body] : [COMMA, w.body])));
    parts.push(CLOSE);
    let answers: string[] | null = null;
    try {
      const res = await this.send('POST', batchPath, Buffer.concat(parts), query);
      if (res.status === 200) answers = splitBatchAnswer(res.text, waiting.length);
    } catch (err) {
      // The transport failed (502/504): alone, each request would have met the same.
      if (!(err instanceof ResponseTooLarge)) {
        for (const w of waiting) w.reject(err);
        return;
      }
    }
    if (answers) {
      waiting.forEach((w, i) => w.resolve({ status: 200, text: answers[i]! }));
      return;
    }
    await Promise.all(waiting.map((w) => this.sendAlone(channel, w)));
  }

  private sendAlone(channel: Channel, w: Waiting): Promise<void> {
    return this.send('POST', channel.path, w.body, channel.query).then(w.resolve, w.reject);
  }
}

/** Whether `body` is exactly one JSON object (its structure; its tokens are the engine's). */
function isWholeObject(body: Buffer): boolean {
  try {
    pointMembers(body);
    return true;
  } catch {
    return false;
  }
}

/** How the engine (ours and Qdrant) starts a batch answer. */
const BATCH_ANSWER_START = Buffer.from('{"result":[');

/**
 * The answers a batch answer `{"result":[a, b, ...], ...rest}` stands for:
 * `{"result":a, ...rest}` and so on, each result's bytes as the engine sent
 * them; null when it is not of that shape with `count` results.
 */
export function splitBatchAnswer(text: string, count: number): string[] | null {
  const raw = Buffer.from(text, 'utf8');
  try {
    let open: number;
    let rest: string;
    let results;
    if (raw.subarray(0, BATCH_ANSWER_START.length).equals(BATCH_ANSWER_START)) {
      // The engine's own order: what follows the array is the rest, as sent.
      open = BATCH_ANSWER_START.length - 1;
      results = arrayElements(raw, open);
      rest = raw.toString('utf8', results.end).trimEnd();
      if (!rest.endsWith('}')) return null;
    } else {
      const members = pointMembers(raw);
      const named = members.filter((m) => m.name === 'result');
      if (named.length !== 1) return null;
      results = arrayElements(raw, named[0]!.start);
      rest = `${members
        .filter((m) => m.name !== 'result')
        .map((m) => `,${JSON.stringify(m.name)}:${raw.toString('utf8', m.start, m.end)}`)
        .join('')}}`;
    }
    if (results.elements.length !== count) return null;
    return results.elements.map(
      (e) => `${RESULT_OPEN}${raw.toString('utf8', e.start, e.end)}${rest}`,
    );
  } catch {
    return null;
  }
}

/**
 * Joins searches (and queries) of one engine collection that arrive together
 * into one batch request to the engine, and splits its answer back into one
 * answer per caller. About half of what a single search costs the engine is
 * per HTTP request, and so is much of what forwarding it costs the gateway.
 *
 * Requests for one collection made in the same turn of the event loop (under
 * load, those whose bytes arrived together) go as one batch at the end of
 * that turn; a request is never held longer, and a lone one goes as itself.
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
import type { EngineResponse, EngineSend, SearchSender } from './engine-client.js';
import { arrayElements, pointMembers } from './json-members.js';

/** Bounds of one batch. */
export interface CoalescerLimits {
  /** Most requests in one batch. */
  maxBatch: number;
  /** A body larger than this is sent on its own. */
  maxBodyBytes: number;
  /** A batch is sent once its bodies reach this many bytes. */
  maxBatchBytes: number;
}

const LIMITS: CoalescerLimits = {
  maxBatch: 64,
  maxBodyBytes: 256 * 1024,
  maxBatchBytes: 4 * 1024 * 1024,
};

/** One caller waiting for its answer. */
interface Waiting {
  body: Buffer;
  resolve: (res: EngineResponse) => void;
  reject: (err: unknown) => void;
}

/** The requests gathered in this turn for one engine path and query string. */
interface Batch {
  path: string;
  batchPath: string;
  query: string;
  waiting: Waiting[];
  bytes: number;
}

const OPEN = Buffer.from('{"searches":[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');
const RESULT_OPEN = '{"result":';

/**
 * Joins concurrent searches of one engine collection into batch requests,
 * wrapping the engine client that sends them.
 */
export class SearchCoalescer implements SearchSender {
  private readonly gathering = new Map<string, Batch>();
  private readonly limits: CoalescerLimits;

  constructor(
    /** The engine client (or anything with its `send`). */
    private readonly engine: { send: EngineSend },
    limits: Partial<CoalescerLimits> = {},
  ) {
    this.limits = { ...LIMITS, ...limits };
  }

  private send(method: string, path: string, body: Buffer, query: string): Promise<EngineResponse> {
    return this.engine.send(method, path, body, query);
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
    let batch = this.gathering.get(key);
    if (!batch) {
      const opened: Batch = { path, batchPath, query, waiting: [], bytes: 0 };
      this.gathering.set(key, opened);
      setImmediate(() => this.flush(key, opened));
      batch = opened;
    }
    const gathered = batch;
    const answer = new Promise<EngineResponse>((resolve, reject) => {
      gathered.waiting.push({ body, resolve, reject });
    });
    gathered.bytes += body.length;
    const { maxBatch, maxBatchBytes } = this.limits;
    if (gathered.waiting.length >= maxBatch || gathered.bytes >= maxBatchBytes) {
      this.flush(key, gathered);
    }
    return answer;
  }

  /** Sends `batch` unless it was sent already (a full batch goes before its turn ends). */
  private flush(key: string, batch: Batch): void {
    if (this.gathering.get(key) !== batch) return;
    this.gathering.delete(key);
    void this.sendBatch(batch);
  }

  /** Sends one batch (a single request as itself) and answers each of its callers. */
  private async sendBatch(batch: Batch): Promise<void> {
    const { waiting } = batch;
    if (waiting.length === 1) return this.sendAlone(batch, waiting[0]!);
    const parts: Buffer[] = [OPEN];
    for (const w of waiting) parts.push(w.body, COMMA);
    parts[parts.length - 1] = CLOSE; // The last comma.
    let answers: string[] | null = null;
    try {
      const res = await this.send('POST', batch.batchPath, Buffer.concat(parts), batch.query);
      if (res.status === 200) answers = splitBatchAnswer(res.text, waiting.length);
    } catch (err) {
      // The engine was unreachable (502) or too slow (504): every request gets that answer;
      // resending them one by one would meet the same, or double the wait.
      if (!(err instanceof ResponseTooLarge)) {
        for (const w of waiting) w.reject(err);
        return;
      }
    }
    if (answers) {
      waiting.forEach((w, i) => w.resolve({ status: 200, text: answers[i]! }));
      return;
    }
    await Promise.all(waiting.map((w) => this.sendAlone(batch, w)));
  }

  private sendAlone(batch: Batch, w: Waiting): Promise<void> {
    return this.send('POST', batch.path, w.body, batch.query).then(w.resolve, w.reject);
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

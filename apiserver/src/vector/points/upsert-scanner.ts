/**
 * An incremental scanner of an upsert body `{"points": [ {...}, ... ], ...}`.
 * It never holds the body: it finds where each element of `points` starts and
 * ends, hands that element's bytes to `onPoint` (which parses that one point
 * with `JSON.parse`), and hands other top-level members to `onField`.
 *
 * Why not a general streaming JSON library (stream-json and the like): those
 * emit a token per value and rebuild objects in JavaScript, several times
 * slower than native `JSON.parse` on a whole point; only element boundaries
 * are needed here, which a byte-level state machine over strings, escapes and
 * bracket depth finds in one pass.
 */
import { MalformedJson, PointPayloadTooLarge } from '../../errors/catalogue.js';
import { MAX_JSON_DEPTH, nestingTooDeep } from '../json-limits.js';
import { BACKSLASH, isSpace, plainRunEnd, QUOTE } from '../json-members.js';

/** Callbacks of the scanner. */
export interface ScannerSink {
  /** One element of `points`, as JSON bytes. */
  onPoint(raw: Buffer): void;
  /** A top-level member other than `points`, parsed. */
  onField(key: string, value: unknown): void;
}

const enum State {
  Start,
  KeyOrEnd,
  Key,
  Colon,
  Value,
  AfterValue,
  ArrayFirst,
  ArrayNext,
  AfterElement,
  Done,
}

/** Bytes that change a captured value's nesting or start a string. */
const STRUCTURAL = new Uint8Array(256);
for (const b of [QUOTE, 0x7b, 0x7d, 0x5b, 0x5d]) STRUCTURAL[b] = 1;

/** Bytes that end a bare scalar (number, true, false, null). */
const SCALAR_END = new Uint8Array(256);
for (const b of [0x2c, 0x7d, 0x5d, 0x20, 0x0a, 0x0d, 0x09]) SCALAR_END[b] = 1;

/** How many backslashes directly precede `end` in `chunk`, not counting below `floor`. */
function trailingBackslashes(chunk: Buffer, end: number, floor: number): number {
  let k = end;
  while (k > floor && chunk[k - 1] === BACKSLASH) k--;
  return end - k;
}

/** Scans one upsert body, chunk by chunk. */
export class UpsertScanner {
  private state = State.Start;
  private key = '';
  // The value being captured (an element of points, or another member's value).
  private capturing = false;
  private captureIsPoint = false;
  private pieces: Buffer[] = [];
  private captured = 0;
  private depth = 0;
  // The deepest the captured value may nest: the body's limit less the levels around it.
  private maxDepth = MAX_JSON_DEPTH;
  private inString = false;
  private escaped = false;
  // Inside a dense vector that the previous chunk ended in (its `[` is counted in depth).
  private plainArray = false;
  private scalar = false;
  private sawPoints = false;

  constructor(
    private readonly sink: ScannerSink,
    /** Largest JSON text of one point (vector and payload together). */
    private readonly maxElementBytes = 8 * 1024 * 1024,
  ) {}

  /** Whether the body had a `points` member. */
  get hasPoints(): boolean {
    return this.sawPoints;
  }

  /** Feeds the next chunk. */
  push(chunk: Buffer): void {
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      if (this.capturing) {
        i = this.capture(chunk, i);
        continue;
      }
      const b = chunk[i]!;
      if (isSpace(b)) {
        i++;
        continue;
      }
      switch (this.state) {
        case State.Start:
          if (b !== 0x7b) throw malformed('the body must be a JSON object');
          this.state = State.KeyOrEnd;
          break;
        case State.KeyOrEnd:
        case State.Key:
          if (b === 0x7d && this.state === State.KeyOrEnd) this.state = State.Done;
          else if (b === QUOTE) {
            this.begin(chunk, i, false);
            continue; // The capture consumes this byte.
          } else throw malformed('expected a member name');
          break;
        case State.Colon:
          if (b !== 0x3a) throw malformed('expected ":"');
          this.state = State.Value;
          break;
        case State.Value:
          if (this.key === 'points' && b === 0x5b) {
            this.sawPoints = true;
            this.state = State.ArrayFirst;
          } else {
            this.begin(chunk, i, false);
            continue; // The capture consumes this byte.
          }
          break;
        case State.AfterValue:
          if (b === 0x2c) this.state = State.Key;
          else if (b === 0x7d) this.state = State.Done;
          else throw malformed('expected "," or "}"');
          break;
        case State.ArrayFirst:
        case State.ArrayNext:
          if (b === 0x5d && this.state === State.ArrayFirst) this.state = State.AfterValue;
          else {
            this.begin(chunk, i, true);
            continue;
          }
          break;
        case State.AfterElement:
          if (b === 0x2c) this.state = State.ArrayNext;
          else if (b === 0x5d) this.state = State.AfterValue;
          else throw malformed('expected "," or "]" in points');
          break;
        case State.Done:
          throw malformed('unexpected data after the body');
      }
      i++;
    }
    // capture() kept the rest of a chunk it ran off; the next chunk starts at 0.
    this.capturedStart = 0;
  }

  /** Call at the end of the body; throws when it was cut short. */
  end(): void {
    if (this.capturing || this.state !== State.Done) throw malformed('the body ended early');
  }

  private capturedStart = 0;

  private begin(chunk: Buffer, i: number, isPoint: boolean): void {
    this.capturing = true;
    this.captureIsPoint = isPoint;
    this.pieces = [];
    this.captured = 0;
    this.depth = 0;
    // A point sits in `points` in the body; another member's value in the body.
    this.maxDepth = MAX_JSON_DEPTH - (isPoint ? 2 : 1);
    this.inString = false;
    this.escaped = false;
    this.plainArray = false;
    this.capturedStart = i;
    const b = chunk[i]!;
    // A member name is captured like a string value; finish() tells them apart by state.
    this.scalar = b !== 0x7b && b !== 0x5b && b !== QUOTE;
  }

  /**
   * Advances through a captured value; returns the index after what it
   * consumed. State lives in locals while the loop runs (field reads cost
   * more than the comparisons), bytes that matter to nothing are skipped in
   * a tight loop, and a string's end is found with a native `indexOf`.
   */
  private capture(chunk: Buffer, from: number): number {
    const n = chunk.length;
    let depth = this.depth;
    let i = from;
    if (this.inString) {
      i = this.skipInString(chunk, i);
      if (i === -1) return this.runOff(chunk, depth, true);
      if (depth === 0) return this.finish(chunk, i);
    }
    if (this.plainArray) {
      this.plainArray = false;
      const end = plainRunEnd(chunk, i);
      if (end === -1) return this.runOffPlain(chunk, depth);
      if (end >= 0) {
        i = end + 1;
        if (--depth === 0) return this.finish(chunk, i);
      }
      // -2: not a dense vector after all; the byte walk below takes over (depth counts its `[`).
    }
    if (this.scalar) {
      while (i < n && SCALAR_END[chunk[i]!] === 0) i++;
      if (i === n) return this.runOff(chunk, depth, false);
      return this.finish(chunk, i);
    }
    while (i < n) {
      const b = chunk[i]!;
      if (STRUCTURAL[b] === 0) {
        i++;
        continue;
      }
      if (b === QUOTE) {
        i = this.skipInString(chunk, i + 1);
        if (i === -1) return this.runOff(chunk, depth, true);
        if (depth === 0) return this.finish(chunk, i);
        continue;
      }
      if (b === 0x5b) {
        // A dense vector is skipped with native searches, also when it goes on in the next chunk.
        const end = plainRunEnd(chunk, i + 1);
        if (end >= 0) {
          if (depth + 1 > this.maxDepth) this.tooDeep();
          i = end + 1;
          if (depth === 0) return this.finish(chunk, i); // The captured value was this array.
          continue;
        }
        if (end === -1) {
          if (depth + 1 > this.maxDepth) this.tooDeep();
          return this.runOffPlain(chunk, depth + 1);
        }
      }
      if (b === 0x7b || b === 0x5b) {
        if (++depth > this.maxDepth) this.tooDeep();
      } else {
        depth--;
        if (depth === 0) return this.finish(chunk, i + 1);
      }
      i++;
    }
    return this.runOff(chunk, depth, false);
  }

  /** Refuses the body: the captured value nests past the body's limit. */
  private tooDeep(): never {
    throw nestingTooDeep();
  }

  /**
   * From inside a string at `i`: the index after its closing quote, or -1
   * when the chunk ends first (`escaped` carries a trailing backslash over).
   */
  private skipInString(chunk: Buffer, i: number): number {
    if (this.escaped) {
      // The previous chunk ended in an escaping backslash: this byte is taken.
      this.escaped = false;
      i++;
    }
    const floor = i;
    for (;;) {
      const quote = chunk.indexOf(QUOTE, i);
      if (quote === -1) {
        // An odd backslash run at the very end escapes the first byte of the next chunk.
        this.escaped = trailingBackslashes(chunk, chunk.length, floor) % 2 === 1;
        return -1;
      }
      if (trailingBackslashes(chunk, quote, floor) % 2 === 0) return quote + 1;
      i = quote + 1;
    }
  }

  /** {@link runOff} inside a dense vector, which the next chunk goes on with. */
  private runOffPlain(chunk: Buffer, depth: number): number {
    const consumed = this.runOff(chunk, depth, false);
    this.plainArray = true;
    return consumed;
  }

  /** Keeps the rest of a chunk the value runs off; returns the chunk's length. */
  private runOff(chunk: Buffer, depth: number, inString: boolean): number {
    this.depth = depth;
    this.inString = inString;
    this.keep(chunk.subarray(this.capturedStart));
    this.capturedStart = chunk.length;
    return chunk.length;
  }

  private keep(piece: Buffer): void {
    if (piece.length === 0) return;
    this.captured += piece.length;
    if (this.captured > this.maxElementBytes) {
      throw new PointPayloadTooLarge(
        `A point or member is larger than ${this.maxElementBytes / (1024 * 1024)} MB of JSON.`,
        { fields: { field: 'points', max: this.maxElementBytes } },
      );
    }
    // Not copied: a request stream hands out a new Buffer per chunk and never reuses it, so a
    // piece stays valid (it keeps its chunk alive until the batch holding it is sent).
    this.pieces.push(piece);
  }

  private finish(chunk: Buffer, end: number): number {
    this.keep(chunk.subarray(this.capturedStart, end));
    this.capturedStart = end;
    this.capturing = false;
    const raw = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces);
    this.pieces = [];
    if (this.captureIsPoint) {
      this.sink.onPoint(raw);
      this.state = State.AfterElement;
    } else if (this.state === State.KeyOrEnd || this.state === State.Key) {
      this.key = parse(raw) as string;
      this.state = State.Colon;
    } else {
      this.sink.onField(this.key, parse(raw));
      this.state = State.AfterValue;
    }
    return end;
  }
}

/** Parses captured JSON text; 400 MALFORMED_JSON when it is not JSON. */
export function parse(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch (cause) {
    throw new MalformedJson(`The body is not valid JSON: ${(cause as Error).message}`, { cause });
  }
}

function malformed(reason: string): MalformedJson {
  return new MalformedJson(`The body is not valid JSON: ${reason}.`);
}

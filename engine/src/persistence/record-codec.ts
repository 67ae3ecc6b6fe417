/**
 * Encodes operations as write-ahead log records: a JSON header and the vectors as raw
 * float32 after it, so a large upsert is neither slow to log nor to replay and its
 * vectors come back bit for bit. Framing (length and checksum) is the log's job.
 */
import { depthExceededAt } from '../../../common/json-depth.js';
import type { JsonObject } from '../../../common/json-path.js';
import type { PointId } from '../point-id.js';
import type { Operation } from '../store/operations.js';

/** A logged operation and its sequence number. */
export interface LoggedOperation {
  seq: number;
  op: Operation;
}

/** The record body of one operation. */
export function encodeRecord(seq: number, op: Operation): Buffer {
  let vectors: Float32Array[] = [];
  let header: unknown;
  if (op.type === 'upsert') {
    vectors = op.points.map((p) => p.vector);
    header = { seq, op: { type: op.type, points: op.points.map((p) => [p.id, p.payload]) } };
  } else if (op.type === 'update_vectors') {
    vectors = op.points.map((p) => p.vector);
    header = { seq, op: { type: op.type, points: op.points.map((p) => p.id) } };
  } else {
    header = { seq, op };
  }
  const json = Buffer.from(JSON.stringify(header));
  const floats = vectors.reduce((n, v) => n + v.length, 0);
  const body = Buffer.allocUnsafe(4 + json.length + floats * 4);
  body.writeUInt32LE(json.length, 0);
  json.copy(body, 4);
  let at = 4 + json.length;
  for (const v of vectors) {
    Buffer.from(v.buffer, v.byteOffset, v.byteLength).copy(body, at);
    at += v.byteLength;
  }
  return body;
}

/**
 * How deep a record's JSON may nest and still be replayed. A request nests at most 127
 * levels (common/json-depth.ts) and its record two more (`{op: {selector: {filter}}}`), but
 * an engine from before that limit logged (and acknowledged) deeper writes, which must
 * still replay. A thousand levels is far from where the stack ends (structuredClone
 * overflows near 2,000, JSON.stringify near 5,000); a deeper record is set aside rather
 * than risk it.
 */
export const MAX_RECORD_DEPTH = 1000;

/**
 * Decodes a record body; `dim` is the collection's vector size. Throws for a record that
 * does not decode, or nests deeper than {@link MAX_RECORD_DEPTH}.
 */
export function decodeRecord(body: Buffer, dim: number): LoggedOperation {
  const jsonLength = body.readUInt32LE(0);
  if (4 + jsonLength > body.length) {
    throw new Error(`record header of ${jsonLength} bytes overruns the ${body.length}-byte record`);
  }
  const json = body.subarray(4, 4 + jsonLength);
  const tooDeep = depthExceededAt(json, MAX_RECORD_DEPTH);
  if (tooDeep >= 0) {
    throw new Error(`record nests deeper than ${MAX_RECORD_DEPTH} levels (at byte ${tooDeep})`);
  }
  const header = JSON.parse(json.toString('utf8')) as {
    seq: number;
    op: { type: string; points?: unknown[] };
  };
  if (!Number.isSafeInteger(header.seq) || typeof header.op?.type !== 'string') {
    throw new Error('record header has no sequence number or operation type');
  }
  const raw = header.op;
  const vectorBytes = body.length - 4 - jsonLength;
  const vectorCount =
    raw.type === 'upsert' || raw.type === 'update_vectors' ? raw.points!.length : 0;
  if (vectorBytes !== vectorCount * dim * 4) {
    throw new Error(
      `record holds ${vectorBytes} bytes of vectors for ${vectorCount} of size ${dim}`,
    );
  }
  const floats = new Float32Array(
    body.buffer.slice(body.byteOffset + 4 + jsonLength, body.byteOffset + body.length),
  );
  const vector = (i: number) => floats.slice(i * dim, (i + 1) * dim);
  if (raw.type === 'upsert') {
    const points = (raw.points as [PointId, JsonObject | null][]).map(([id, payload], i) => ({
      id,
      payload,
      vector: vector(i),
    }));
    return { seq: header.seq, op: { type: 'upsert', points } };
  }
  if (raw.type === 'update_vectors') {
    const points = (raw.points as PointId[]).map((id, i) => ({ id, vector: vector(i) }));
    return { seq: header.seq, op: { type: 'update_vectors', points } };
  }
  return { seq: header.seq, op: raw as unknown as Operation };
}

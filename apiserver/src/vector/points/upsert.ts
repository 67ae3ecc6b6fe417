/**
 * The streaming upsert: the body is scanned as it arrives, each point checked
 * and stamped, and points forwarded to the engine in batches, so memory stays
 * bounded by one batch whatever the body size. Reading pauses while a batch
 * is at the engine (the loop awaits it), which is the backpressure.
 *
 * A refusal found part-way (point 10,001, a bad id, a reserved key) answers
 * the error, and batches already forwarded stay written: holding every point
 * until the end would mean holding the body. Upsert is idempotent, so
 * resending the corrected request converges.
 *
 * A payload schema is enforced point by point as the body streams: under
 * `strict`, violations are collected while a batch fills and the batch is
 * refused (400 SCHEMA_VALIDATION_FAILED) instead of being forwarded, so a
 * refused batch writes none of its points; earlier batches stay written, and
 * the error's `details.points_written` says how many points that was.
 */
import type { Context } from 'koa';
import type { AuthContext } from '../../auth/authenticate.js';
import {
  RequestIdleTimeout,
  TooManyPoints,
  UpsertBodyTooLarge,
  VectorValidationError,
} from '../../errors/catalogue.js';
import type { VectorCollectionDoc } from '../collections/model.js';
import type { EngineClient, EngineResponse } from '../engine-client.js';
import { engineFailure } from '../engine-errors.js';
import type { StorageMeter } from '../storage/storage-meter.js';
import { WriteCheck } from '../schema/enforcement.js';
import { checkJsonContentType } from '../json-body.js';
import { checkFiniteValue } from '../json-limits.js';
import { attestation } from './payload-keys.js';
import { BatchWriter } from './batch-writer.js';
import { stampOf, writeStampedPoint } from './stamped-point.js';
import { UpsertScanner } from './upsert-scanner.js';

/** The upsert limits of the contract (tests shorten the idle timeout). */
export interface UpsertLimits {
  maxPoints: number;
  maxBodyBytes: number;
  idleTimeoutMs: number;
  /** Points per engine request. */
  batchPoints: number;
  /** Serialised bytes per engine request. */
  batchBytes: number;
}

/** The contract's values. */
export const UPSERT_LIMITS: UpsertLimits = {
  maxPoints: 10_000,
  maxBodyBytes: 500 * 1024 * 1024,
  idleTimeoutMs: 30_000,
  batchPoints: 1000,
  batchBytes: 4 * 1024 * 1024,
};

/**
 * Streams one upsert body into the engine collection; returns the last engine
 * answer. The storage cap is checked before every batch, counting what this
 * request has already written.
 */
export async function streamUpsert(
  ctx: Context,
  caller: AuthContext,
  collection: VectorCollectionDoc,
  engine: EngineClient,
  limits: UpsertLimits,
  storage: StorageMeter,
  check: WriteCheck = WriteCheck.none(),
): Promise<EngineResponse> {
  checkJsonContentType(ctx.req.headers);
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limits.maxBodyBytes) throw bodyTooLarge(limits);
  await storage.assertRoom(caller.account._id, caller.plan);

  const stampBytes = stampOf(attestation(caller));
  const extra: Record<string, unknown> = {};
  // The batch's body as it will be sent: `{"points":[`, the points with commas between, `]}`.
  // Sized for the first batch: the whole body when it is smaller than one, plus room for stamps.
  const batch = BatchWriter.acquire(
    Math.min(declared || limits.batchBytes, limits.batchBytes) * 1.1 + 64 * 1024,
  );
  batch.write(POINTS_HEAD);
  let batchPoints = 0;
  let count = 0;
  let last: EngineResponse | null = null;
  // For the storage estimate: payload JSON bytes and points forwarded so far.
  let payloadBytes = 0;
  let written = 0;

  const scanner = new UpsertScanner({
    onField: (key, value) => {
      if (key === 'batch') {
        throw new VectorValidationError('Send points as {points:[{id, vector, payload?}]}.', {
          fields: { field: 'batch' },
        });
      }
      // A condition must guard every batch: one read after a batch was forwarded
      // (a body of more than one batch with it after `points`) is refused.
      if (CONDITIONS.has(key) && last !== null) {
        throw new VectorValidationError(
          `${key} must come before points in an upsert of more than ${limits.batchPoints} points; the points before it were written unconditionally.`,
          { fields: { field: key } },
        );
      }
      checkFiniteValue(value, key);
      extra[key] = value;
    },
    onPoint: (raw) => {
      count++;
      if (count > limits.maxPoints) {
        throw new TooManyPoints(`One upsert may carry at most ${limits.maxPoints} points.`, {
          fields: { field: 'points', max: limits.maxPoints },
        });
      }
      if (batchPoints > 0) batch.write(COMMA);
      payloadBytes += writeStampedPoint(raw, count - 1, stampBytes, check, batch);
      batchPoints++;
    },
  });

  const flush = async () => {
    // Strict: a batch with a violation is refused here, before any of it is forwarded.
    check.settle();
    const points = batchPoints;
    const batchEstimate =
      points * 4 * collection.size + (payloadBytes * points) / Math.max(count, 1);
    await storage.assertRoom(caller.account._id, caller.plan, written);
    batch.write(CLOSE_POINTS);
    const body = withMembers(batch.bytes(), extra);
    batchPoints = 0;
    const res = await engine.send(
      'PUT',
      `/collections/${collection.engineName}/points`,
      body,
      ctx.querystring,
    );
    if (res.status >= 400) throw engineFailure(res);
    // The engine has read the whole body: the next batch may reuse the buffer.
    batch.reset();
    batch.write(POINTS_HEAD);
    written += batchEstimate;
    storage.noteWritten(caller.account._id, batchEstimate);
    last = res;
  };

  let received = 0;
  for await (const chunk of idleBounded(ctx.req, limits.idleTimeoutMs)) {
    received += chunk.length;
    if (received > limits.maxBodyBytes) throw bodyTooLarge(limits);
    scanner.push(chunk);
    if (batchPoints >= limits.batchPoints || batch.length >= limits.batchBytes) await flush();
  }
  scanner.end();
  if (!scanner.hasPoints) {
    throw new VectorValidationError('Send points as {points:[{id, vector, payload?}]}.', {
      fields: { field: 'points' },
    });
  }
  if (batchPoints > 0 || last === null) await flush();
  // Only after success: a failed send may still be reading the buffer.
  batch.release();
  if (count > 0) {
    await storage
      .recordPayloadAverage(collection, payloadBytes / count)
      .catch((err: unknown) => ctx.state.log.warn('payload size not recorded', { err }));
  }
  return last!;
}

/** Members that make the upsert conditional (Qdrant's `update_filter`, `update_mode`). */
const CONDITIONS = new Set(['update_filter', 'update_mode']);

const COMMA = Buffer.from(',');
const POINTS_HEAD = Buffer.from('{"points":[');
const CLOSE_POINTS = Buffer.from(']}');

/**
 * The batch body with the body's other top-level members (`shard_key` and
 * the like) put in front of `points`; the body itself when there are none.
 */
export function withMembers(body: Buffer, extra: Record<string, unknown>): Buffer {
  const entries = Object.entries(extra);
  if (entries.length === 0) return body;
  const head = entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)},`).join('');
  return Buffer.concat([Buffer.from(`{${head}`), body.subarray(1)]);
}

/**
 * The chunks of `stream`, failing with 408 REQUEST_IDLE_TIMEOUT when none
 * arrives for `idleMs`. The stream is left open so the 408 can still be sent.
 */
async function* idleBounded(
  stream: AsyncIterable<unknown>,
  idleMs: number,
): AsyncGenerator<Buffer> {
  const iterator = stream[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new RequestIdleTimeout(
                `No bytes of the body arrived for ${Math.round(idleMs / 1000)} seconds.`,
              ),
            ),
          idleMs,
        );
      });
      const next = await Promise.race([iterator.next(), idle]);
      clearTimeout(timer);
      if (next.done) return;
      yield next.value as Buffer;
    }
  } finally {
    clearTimeout(timer);
  }
}

function bodyTooLarge(limits: UpsertLimits): UpsertBodyTooLarge {
  return new UpsertBodyTooLarge(
    `The upsert body exceeds ${Math.round(limits.maxBodyBytes / (1024 * 1024))} MB.`,
    { fields: { max: limits.maxBodyBytes } },
  );
}

/**
 * The streaming upsert: the body is scanned as it arrives, each point checked
 * and stamped, and points gathered into batches for the engine, so memory
 * stays bounded by one batch whatever the body size.
 *
 * Nothing is written before the whole body has been read and checked: a
 * refusal found part-way (point 10,001, a bad id, a reserved key, a vector
 * the collection cannot hold, a strict schema violation, a malformed end)
 * writes no point, and members after `points` (`update_filter`,
 * `update_mode`) guard every batch, the first ones included. Each point's
 * vector is checked against the collection's (point-shape.ts), as the engine
 * would check it, so the engine has no reason of the point's own to refuse a
 * later batch; and the whole body's estimated size is checked against the
 * storage cap before the first batch. A body of one batch is held in memory;
 * the batches of a larger one wait on disk (batch-spool.ts) until the body
 * ends, then go to the engine in order. A batch the engine fails all the
 * same (unavailable, timed out, JSON that does not parse inside a vector or
 * payload, which the gateway copies unread) leaves the batches before it
 * written: the error says how many points in `details.points_written`.
 * Upsert is idempotent, so resending the request converges.
 *
 * A payload schema is enforced point by point as the body streams: under
 * `strict`, violations are collected while a batch fills and the request is
 * refused (400 SCHEMA_VALIDATION_FAILED, `details.points_written` 0) when
 * the batch is complete, without reading the rest of the body.
 */
import type { Context } from 'koa';
import type { AuthContext } from '../../auth/authenticate.js';
import {
  ApiError,
  RequestIdleTimeout,
  TooManyPoints,
  UpsertBodyTooLarge,
  VectorValidationError,
} from '../../errors/catalogue.js';
import type { VectorCollectionDoc } from '../collections/model.js';
import type { EngineClient, EngineResponse } from '../engine-client.js';
import { engineFailure } from '../engine-errors.js';
import type { StorageMeter } from '../storage/storage-meter.js';
import type { PointId } from '../schema/scan.js';
import { WriteCheck } from '../schema/enforcement.js';
import { checkJsonBodyHeaders } from '../json-body.js';
import { checkFiniteValue } from '../json-limits.js';
import { attestation } from './payload-keys.js';
import { BatchSpool } from './batch-spool.js';
import { BatchWriter } from './batch-writer.js';
import { stampOf, writeStampedPoint } from './stamped-point.js';
import { UpsertScanner } from './upsert-scanner.js';

/** The upsert limits of the contract (tests shorten the idle timeout), and a hook for tests. */
export interface UpsertLimits {
  maxPoints: number;
  maxBodyBytes: number;
  idleTimeoutMs: number;
  /** Points per engine request. */
  batchPoints: number;
  /** Serialised bytes per engine request. */
  batchBytes: number;
  /**
   * Called each time a piece of a body has been taken in (its points checked, a full batch set
   * aside), with the bytes of the body read so far and the collection's name: tests that send a
   * body in pieces send the next once the gateway holds the ones before.
   */
  onBodyRead?: (bytes: number, collection: string) => void;
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
 * answer. The storage cap is checked before the body is read (an account at
 * its cap is refused at once) and again once it has been read, against the
 * whole body's estimate, before anything is written.
 */
export async function streamUpsert(
  ctx: Context,
  caller: AuthContext,
  collection: VectorCollectionDoc,
  engine: EngineClient,
  limits: UpsertLimits,
  storage: StorageMeter,
  check: WriteCheck = WriteCheck.none(),
  /** Given, collects the id of every point of the body. */
  ids?: PointId[],
): Promise<EngineResponse> {
  checkJsonBodyHeaders(ctx.req.headers);
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
  const spool = new BatchSpool();
  // Points per batch, in order: the spooled ones, then the one in `batch`.
  const batchSizes: number[] = [];
  batch.write(POINTS_HEAD);
  let batchPoints = 0;
  let count = 0;
  // For the storage estimate: payload JSON bytes of every point.
  let payloadBytes = 0;

  const scanner = new UpsertScanner({
    onField: (key, value) => {
      if (key === 'batch') {
        throw new VectorValidationError('Send points as {points:[{id, vector, payload?}]}.', {
          fields: { field: 'batch' },
        });
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
      // The size as looked up, cached for seconds: fixed once created, so only a collection
      // deleted and created again with another size by another replica is briefly misjudged.
      payloadBytes += writeStampedPoint(
        raw,
        count - 1,
        stampBytes,
        check,
        batch,
        collection.size,
        ids,
      );
      batchPoints++;
    },
  });

  /** Closes the batch being filled; with `toSpool`, moves it to disk and starts the next. */
  const closeBatch = async (toSpool: boolean) => {
    // Strict: a batch with a violation refuses the request here; nothing has been written.
    check.settle(0);
    batch.write(CLOSE_POINTS);
    batchSizes.push(batchPoints);
    batchPoints = 0;
    if (!toSpool) return;
    await spool.append(batch.bytes());
    batch.reset();
    batch.write(POINTS_HEAD);
  };

  let last: EngineResponse;
  try {
    let received = 0;
    for await (const chunk of idleBounded(ctx.req, limits.idleTimeoutMs)) {
      received += chunk.length;
      if (received > limits.maxBodyBytes) throw bodyTooLarge(limits);
      scanner.push(chunk);
      if (batchPoints >= limits.batchPoints || batch.length >= limits.batchBytes) {
        await closeBatch(true);
      }
      limits.onBodyRead?.(received, collection.name);
    }
    scanner.end();
    if (!scanner.hasPoints) {
      throw new VectorValidationError('Send points as {points:[{id, vector, payload?}]}.', {
        fields: { field: 'points' },
      });
    }
    // An empty `points` (or none left over) still sends one request when nothing else does.
    const pending = batchPoints > 0 || spool.length === 0;
    if (pending) await closeBatch(spool.length > 0);

    // The whole body is known and valid: it must fit in the room left, then it is applied,
    // batch by batch. Its estimate is counted at once, so concurrent writes see it.
    const estimate = count * 4 * collection.size + payloadBytes;
    await storage.assertRoomFor(caller.account._id, caller.plan, estimate);
    storage.noteWritten(caller.account._id, estimate);
    let written = 0;
    const send = async (bytes: Buffer, points: number) => {
      let res: EngineResponse;
      try {
        res = await engine.send(
          'PUT',
          `/collections/${collection.engineName}/points`,
          withMembers(bytes, extra),
          ctx.querystring,
        );
        if (res.status >= 400) throw engineFailure(res);
      } catch (err) {
        // What was counted and not written is given back.
        storage.noteWritten(caller.account._id, -estimate * (1 - written / Math.max(count, 1)));
        throw withPointsWritten(err, written);
      }
      written += points;
      return res;
    };
    let index = 0;
    let answer: EngineResponse | null = null;
    // The engine has read a whole body once it answers 2xx, so the buffer serves the next batch.
    for await (const bytes of spool.batches((size) => batch.claim(size))) {
      answer = await send(bytes, batchSizes[index++]!);
    }
    if (pending && spool.length === 0) answer = await send(batch.bytes(), batchSizes[index]!);
    last = answer!;
  } finally {
    await spool.close();
  }
  // Only after success: a failed send may still be reading the buffer.
  batch.release();
  if (count > 0) {
    await storage
      .recordPayloadAverage(collection, payloadBytes / count)
      .catch((err: unknown) => ctx.state.log.warn('payload size not recorded', { err }));
  }
  return last;
}

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

/**
 * `err` with `details.points_written`: how many points of the body, from the
 * first, the engine confirmed before it failed a batch. Errors that are not
 * the contract's (a 500) are left as they are.
 */
export function withPointsWritten(err: unknown, written: number): unknown {
  if (!(err instanceof ApiError)) return err;
  const details = { ...(err.fields.details as object | undefined), points_written: written };
  return new ApiError(err.status, err.code, err.message, {
    fields: { ...err.fields, details },
    headers: err.headers,
    cause: err,
  });
}

function bodyTooLarge(limits: UpsertLimits): UpsertBodyTooLarge {
  return new UpsertBodyTooLarge(
    `The upsert body exceeds ${Math.round(limits.maxBodyBytes / (1024 * 1024))} MB.`,
    { fields: { max: limits.maxBodyBytes } },
  );
}

/**
 * The plan's vector storage cap: writes that add data (upsert, payload set
 * and overwrite, vector update) are refused with 429 STORAGE_LIMIT_EXCEEDED
 * once an account's estimated storage reaches its plan's `vectorStorageMb`.
 * Deletes are never refused: freeing space is how a caller gets out.
 *
 * The estimate of one collection is `points_count × (4 × size + payload
 * bytes per point)`: vectors as the engine stores them (float32) plus the
 * average JSON size of the payloads the gateway forwarded (recorded on the
 * collection's metadata by upserts). `points_count` comes from the engine,
 * so deletes, overwrites and re-creates are reflected without bookkeeping.
 * An account's usage sums every collection of every environment and
 * workspace; it is cached for a few seconds per account, and writes made
 * meanwhile are added to the cached value, so a burst of upserts cannot run
 * far past the cap between two refreshes.
 */
import type { Plan } from '../../accounts/plans.js';
import { StorageLimitExceeded } from '../../errors/catalogue.js';
import type { Collections } from '../../store/database.js';
import type { VectorCollectionDoc } from '../collections/model.js';
import type { Engines } from '../engines.js';
import { engineFailure } from '../engine-errors.js';

const BYTES_PER_MB = 1024 * 1024;

/** How long an account's measured usage is reused, by default. */
export const USAGE_TTL_MS = 10_000;

/** A recorded payload average is rewritten only when it moves by more than this fraction. */
const PAYLOAD_AVERAGE_SLACK = 0.1;

/** Estimated bytes of one point of `doc`. */
export function bytesPerPoint(
  doc: Pick<VectorCollectionDoc, 'size' | 'payloadBytesPerPoint'>,
): number {
  return 4 * doc.size + (doc.payloadBytesPerPoint ?? 0);
}

interface Measured {
  bytes: number;
  at: number;
}

/** Measures accounts' vector storage and enforces the plan's cap. */
export class StorageMeter {
  private readonly usage = new Map<string, Measured>();

  constructor(
    private readonly c: Pick<Collections, 'vectorCollections'>,
    private readonly engines: Engines,
    private readonly now: () => number = () => Date.now(),
    private readonly ttlMs = USAGE_TTL_MS,
  ) {}

  /**
   * Refuses with 429 STORAGE_LIMIT_EXCEEDED when the account's usage plus
   * `incomingBytes` (what this request has written so far) has reached the
   * plan's cap. Unlimited plans cost nothing.
   */
  async assertRoom(accountId: string, plan: Plan, incomingBytes = 0): Promise<void> {
    const capMb = plan.vectorStorageMb;
    if (capMb === null) return;
    const used = await this.usedBytes(accountId);
    if (used + incomingBytes < capMb * BYTES_PER_MB) return;
    throw new StorageLimitExceeded(
      `The plan's vector storage of ${capMb} MB is used up; delete points or collections first.`,
      { fields: { field: 'storage_mb', max: capMb } },
    );
  }

  /**
   * Refuses with 429 STORAGE_LIMIT_EXCEEDED a write of an estimated `bytes`
   * that would take the account's usage past the plan's cap (or that comes
   * when the cap is reached). Unlimited plans cost nothing.
   */
  async assertRoomFor(accountId: string, plan: Plan, bytes: number): Promise<void> {
    const capMb = plan.vectorStorageMb;
    if (capMb === null) return;
    const used = await this.usedBytes(accountId);
    const cap = capMb * BYTES_PER_MB;
    if (used < cap && used + bytes <= cap) return;
    const mb = (n: number) => Math.ceil((n / BYTES_PER_MB) * 10) / 10;
    throw new StorageLimitExceeded(
      `This write (about ${mb(bytes)} MB) would take the vector storage past the plan's ${capMb} MB ` +
        `(about ${mb(Math.max(cap - used, 0))} MB left); delete points or collections first, or write less.`,
      { fields: { field: 'storage_mb', max: capMb } },
    );
  }

  /** Adds a write's estimated bytes to the cached usage of the account (until the next measurement). */
  noteWritten(accountId: string, bytes: number): void {
    const measured = this.usage.get(accountId);
    if (measured) measured.bytes += bytes;
  }

  /**
   * Records the average payload size an upsert carried, when it differs
   * enough from the recorded one to matter. Best effort: the estimate only
   * steers the cap.
   */
  async recordPayloadAverage(doc: VectorCollectionDoc, average: number): Promise<void> {
    const recorded = doc.payloadBytesPerPoint ?? 0;
    if (Math.abs(average - recorded) <= recorded * PAYLOAD_AVERAGE_SLACK) return;
    await this.c.vectorCollections.updateOne(
      { _id: doc._id, createdAt: doc.createdAt },
      { $set: { payloadBytesPerPoint: Math.round(average) } },
    );
    // `doc` is the lookup cache's copy: without this, every upsert would write again until it expires.
    doc.payloadBytesPerPoint = Math.round(average);
  }

  /** The account's estimated storage in bytes, measured at most every TTL. */
  async usedBytes(accountId: string): Promise<number> {
    const cached = this.usage.get(accountId);
    if (cached && this.now() - cached.at < this.ttlMs) return cached.bytes;
    const docs = await this.c.vectorCollections.find({ accountId }).toArray();
    const sizes = await Promise.all(docs.map((doc) => this.collectionBytes(doc)));
    const bytes = sizes.reduce((a, b) => a + b, 0);
    this.usage.set(accountId, { bytes, at: this.now() });
    return bytes;
  }

  /** The estimated bytes `docs` hold now, measured at the engine (no cache). */
  async measure(docs: readonly VectorCollectionDoc[]): Promise<number> {
    const sizes = await Promise.all(docs.map((doc) => this.collectionBytes(doc)));
    return sizes.reduce((a, b) => a + b, 0);
  }

  private async collectionBytes(doc: VectorCollectionDoc): Promise<number> {
    if (doc.status !== 'active') return 0;
    const res = await this.engines.forDoc(doc).engine.send('GET', `/collections/${doc.engineName}`);
    // Metadata without an engine collection (a create or delete cut short) holds nothing.
    if (res.status === 404) return 0;
    if (res.status >= 400) throw engineFailure(res);
    const points = (JSON.parse(res.text) as { result?: { points_count?: number } }).result
      ?.points_count;
    return (points ?? 0) * bytesPerPoint(doc);
  }
}

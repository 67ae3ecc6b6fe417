/**
 * Samples vector storage as usage: every `intervalMs` the vector plane
 * measures what each tenant's collections hold (the same estimate the
 * storage cap uses) and records one `vector_storage` event per tenant with
 * it; a period's summary shows the peak. Storage is a level, not a flow, so
 * samples are never added up.
 */
import type { Collection } from 'mongodb';
import type { Logger } from '../../../common/logger.js';
import type { VectorCollectionDoc } from '../vector/collections/model.js';
import type { StorageMeter } from '../vector/storage/storage-meter.js';
import type { UsageRecorder } from './usage-writer.js';

const BYTES_PER_MB = 1024 * 1024;

/** Default time between samples. */
export const STORAGE_SAMPLE_INTERVAL_MS = 60 * 60_000;

/** Records tenants' vector storage. */
export class StorageSampler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly collections: Collection<VectorCollectionDoc>,
    private readonly meter: Pick<StorageMeter, 'measure'>,
    private readonly usage: UsageRecorder,
    private readonly log: Logger,
  ) {}

  /** Measures every tenant holding collections and records a sample for each; returns how many. */
  async sample(): Promise<number> {
    const tenants = new Map<string, VectorCollectionDoc[]>();
    for (const doc of await this.collections.find({ status: 'active' }).toArray()) {
      const key = `${doc.accountId}|${doc.environment}`;
      tenants.set(key, [...(tenants.get(key) ?? []), doc]);
    }
    for (const docs of tenants.values()) {
      const { accountId, environment } = docs[0]!;
      const bytes = await this.meter.measure(docs);
      this.usage.record({
        accountId,
        environment,
        agentId: null,
        kind: 'vector_storage',
        storageMb: bytes / BYTES_PER_MB,
      });
    }
    return tenants.size;
  }

  /** Samples every `intervalMs` until {@link stop}. */
  start(intervalMs = STORAGE_SAMPLE_INTERVAL_MS): void {
    this.timer = setInterval(() => {
      this.running = this.sample().catch((err: unknown) =>
        this.log.warn('vector storage sample failed', { err: (err as Error).message }),
      );
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops sampling, after a sample in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}

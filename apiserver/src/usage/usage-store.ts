/**
 * Usage events in MongoDB: batch inserts, the totals of a period computed by
 * the database (one `$match` + `$group` aggregation, within what FerretDB v1
 * serves: `$sum`, one accumulator per `$group`, no `$max`), and an agent's events a page at a time (keyset on `at`, `_id`).
 */
import type { Collection, Db, Filter } from 'mongodb';
import type { Environment } from '../accounts/model.js';
import type { UsageEventDoc, UsageKind } from './model.js';

/** Totals of one kind, for one agent or for the account. */
export interface UsageTotals {
  events: number;
  count: number;
  seconds: number;
  mbSeconds: number;
  bytes: number;
  /** The peak of the storage samples (vector_storage). */
  peakStorageMb: number;
}

/** One group the aggregation returns. */
export interface UsageGroup extends UsageTotals {
  kind: UsageKind;
  agentId: string | null;
}

/** A page of events, newest first. */
export interface UsageEventPage {
  events: UsageEventDoc[];
  /** The position after the last event, when more may follow. */
  next: { at: Date; id: string } | null;
}

/** What {@link UsageStore.page} selects. */
export interface UsageEventQuery {
  accountId: string;
  environment: Environment;
  agentId: string;
  kinds?: readonly UsageKind[];
  from?: Date;
  to?: Date;
  after?: { at: Date; id: string };
  limit: number;
}

const DUPLICATE_KEY = 11000;

/** The summed measures of {@link UsageTotals}. */
const MEASURES = ['events', 'count', 'seconds', 'mbSeconds', 'bytes'] as const;

/** Totals of nothing. */
export function emptyTotals(): UsageTotals {
  return { events: 0, count: 0, seconds: 0, mbSeconds: 0, bytes: 0, peakStorageMb: 0 };
}

/** The usage events collection. */
export class UsageStore {
  constructor(readonly events: Collection<UsageEventDoc>) {}

  /** The store on `db`'s `usage_events`. */
  static open(db: Db): UsageStore {
    return new UsageStore(db.collection<UsageEventDoc>('usage_events'));
  }

  /** Creates the indexes the summary and the pages use; safe on every start. */
  async ensureIndexes(): Promise<void> {
    await Promise.all([
      this.events.createIndex({ accountId: 1, at: -1 }),
      this.events.createIndex({ accountId: 1, environment: 1, agentId: 1, at: -1, _id: -1 }),
    ]);
  }

  /** Inserts a batch; events already stored under the same id are left as they are. */
  async insert(docs: UsageEventDoc[]): Promise<void> {
    if (docs.length === 0) return;
    try {
      await this.events.insertMany(docs, { ordered: false });
    } catch (err) {
      const e = err as { code?: number; writeErrors?: Array<{ code?: number }> };
      const errors = e.writeErrors ?? (e.code !== undefined ? [{ code: e.code }] : []);
      if (errors.length === 0 || errors.some((w) => w.code !== DUPLICATE_KEY)) throw err;
    }
  }

  /**
   * Totals per kind and agent of the account's events with `from <= at < to`,
   * summed by the database: one `$match` on the indexed fields, one `$group`.
   */
  async totals(accountId: string, from: Date, to: Date): Promise<UsageGroup[]> {
    const match = { $match: { accountId, at: { $gte: from, $lt: to } } };
    // One $group per measure: FerretDB v1 computes only the first accumulator of a $group
    // (the others come back 0; FerretDB/FerretDB#4616, open), so each sum is its own
    // aggregation, run side by side.
    const sums = await Promise.all(
      MEASURES.map((measure) =>
        this.events
          .aggregate<{ _id: { kind: UsageKind; agentId: string | null }; total: number }>([
            match,
            {
              $group: {
                _id: { kind: '$kind', agentId: '$agentId' },
                total: { $sum: measure === 'events' ? 1 : `$${measure}` },
              },
            },
          ])
          .toArray(),
      ),
    );
    const groups = new Map<string, UsageGroup>();
    MEASURES.forEach((measure, i) => {
      for (const row of sums[i]!) {
        const agentId = row._id.agentId ?? null;
        const key = `${row._id.kind}|${agentId}`;
        let group = groups.get(key);
        if (!group) {
          group = { kind: row._id.kind, agentId, ...emptyTotals() };
          groups.set(key, group);
        }
        group[measure] = row.total;
      }
    });
    // Nor has it $max: the peak storage sample is one indexed, sorted read.
    for (const group of [...groups.values()].filter((g) => g.kind === 'vector_storage')) {
      const [peak] = await this.events
        .find({
          accountId,
          kind: 'vector_storage',
          agentId: group.agentId,
          at: { $gte: from, $lt: to },
        })
        .sort({ storageMb: -1 })
        .limit(1)
        .toArray();
      group.peakStorageMb = peak?.storageMb ?? 0;
    }
    return [...groups.values()];
  }

  /** A page of one agent's events, newest first. */
  async page(q: UsageEventQuery): Promise<UsageEventPage> {
    const filter: Filter<UsageEventDoc> = {
      accountId: q.accountId,
      environment: q.environment,
      agentId: q.agentId,
    };
    if (q.kinds && q.kinds.length > 0) filter.kind = { $in: [...q.kinds] };
    const at: { $gte?: Date; $lt?: Date } = {};
    if (q.from) at.$gte = q.from;
    if (q.to) at.$lt = q.to;
    if (q.from || q.to) filter.at = at;
    const conditions: Filter<UsageEventDoc>[] = [filter];
    if (q.after) {
      conditions.push({
        $or: [{ at: { $lt: q.after.at } }, { at: q.after.at, _id: { $lt: q.after.id } }],
      });
    }
    const docs = await this.events
      .find(conditions.length === 1 ? filter : { $and: conditions })
      .sort({ at: -1, _id: -1 })
      .limit(q.limit + 1)
      .toArray();
    const events = docs.slice(0, q.limit);
    const last = events[events.length - 1];
    return {
      events,
      next: docs.length > q.limit && last ? { at: last.at, id: last._id } : null,
    };
  }
}

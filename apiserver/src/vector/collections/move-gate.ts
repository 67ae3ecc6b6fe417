/**
 * What the gateway does for a collection whose points a region change is
 * moving to another region's engine (see {@link CollectionMove}): while they
 * are copied, reads and writes go to the old engine and every write, once
 * applied, is logged (the ids it changed; "everything" for a write by filter)
 * for the mover to copy again, so no write made during the copy is lost;
 * while the mover copies what the log still holds and switches engines, writes
 * wait (a few seconds) and then go where the collection is served from then.
 */
import type { Collection } from 'mongodb';
import { CollectionNotFound, ServiceUnavailable } from '../../errors/catalogue.js';
import { isServed, type MoveLogDoc, type VectorCollectionDoc } from './model.js';

/** What a write changed, as logged. */
export interface WriteChanges {
  ids?: Array<string | number>;
  indexes?: boolean;
}

/** Options of a {@link MoveGate}. */
export interface MoveGateOptions {
  /** How long a write waits for a switch to finish before 503 (default 30 s). */
  holdMs?: number;
  /** How often a held write reads the collection again (default 100 ms). */
  pollMs?: number;
}

/** Holds and logs the writes of collections being moved. */
export class MoveGate {
  constructor(
    private readonly c: {
      vectorCollections: Collection<VectorCollectionDoc>;
      vectorMoveLog: Collection<MoveLogDoc>;
    },
    /** Forgets a cached lookup of a collection (its record changed). */
    private readonly forget: (id: string) => void,
    private readonly options: MoveGateOptions = {},
  ) {}

  /**
   * The record to write through: `doc` itself unless it is switching engines,
   * in which case the write waits until it is not (re-reading it), then gets
   * the record as it is then.
   */
  async forWrite(doc: VectorCollectionDoc): Promise<VectorCollectionDoc> {
    if (doc.move?.phase !== 'switching') return doc;
    const deadline = Date.now() + (this.options.holdMs ?? 30_000);
    let current: VectorCollectionDoc | null = doc;
    while (current?.move?.phase === 'switching') {
      if (Date.now() > deadline) {
        throw new ServiceUnavailable(
          `Collection ${doc.name} is switching regions; retry in a few seconds.`,
          { fields: { collection_name: doc.name, retriable: true } },
        );
      }
      await new Promise((r) => setTimeout(r, this.options.pollMs ?? 100));
      current = await this.c.vectorCollections.findOne({ _id: doc._id });
    }
    this.forget(doc._id);
    if (!current || !isServed(current)) {
      throw new CollectionNotFound(`Collection ${doc.name} not found.`, {
        fields: { collection_name: doc.name },
      });
    }
    return current;
  }

  /** Logs a write applied to `doc` while its points are being copied. */
  async record(doc: VectorCollectionDoc, changes: WriteChanges): Promise<void> {
    if (doc.move?.phase !== 'copying' && doc.move?.phase !== 'switching') return;
    if (!changes.indexes && changes.ids?.length === 0) return;
    try {
      await this.c.vectorMoveLog.insertOne({
        collectionId: doc._id,
        ...(changes.ids ? { ids: changes.ids } : {}),
        ...(changes.indexes ? { indexes: true } : {}),
        at: new Date(),
      });
    } catch (cause) {
      throw new ServiceUnavailable(
        `The write was applied, but collection ${doc.name} is moving regions and the write could not be recorded for the move; send it again.`,
        { cause, fields: { collection_name: doc.name, retriable: true } },
      );
    }
  }
}

/** What a write of point route `route` with `body` changed (null: nothing to log). */
export function changesOf(
  kind: 'points' | 'indexes' | undefined,
  body: Record<string, unknown> | undefined,
): WriteChanges | null {
  if (kind === 'indexes') return { indexes: true };
  if (kind !== 'points' || !body) return null;
  if (Array.isArray(body.points)) {
    const ids = body.points.map((p) =>
      typeof p === 'object' && p !== null ? (p as { id?: unknown }).id : p,
    );
    if (ids.every((id) => typeof id === 'string' || typeof id === 'number')) {
      return { ids: ids as Array<string | number> };
    }
  }
  // By filter (or a shape not understood): compare everything again.
  return {};
}

/**
 * The version documents of payload schemas (see model.ts). Writes insert the
 * next version with a unique `_id`, so of two writers that read the same
 * version exactly one insert succeeds; the loser gets the duplicate-key error,
 * which is the whole of the compare-and-set, atomic on MongoDB and FerretDB
 * alike.
 */
import { MongoServerError, type Collection } from 'mongodb';
import { SchemaVersionMismatch, ServiceUnavailable } from '../../errors/catalogue.js';
import type { VectorCollectionDoc } from '../collections/model.js';
import {
  schemaEtag,
  schemaVersionId,
  type EnforcementMode,
  type PayloadSchemaDoc,
  type StoredSchema,
} from './model.js';
import type { IfMatch } from './rules.js';

const DUPLICATE_KEY = 11000;

/** Unconditional writes retry this often when other writers keep taking the next version. */
const MAX_ATTEMPTS = 20;

/** What a PUT stores. */
export interface SchemaContent {
  schemaJson: string;
  enforcementMode: EnforcementMode;
  description: string | null;
}

/** Reads and writes schema versions. */
export class SchemaStore {
  constructor(
    private readonly docs: Collection<PayloadSchemaDoc>,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** The schema in force for `collection`, or null (none, or deleted). */
  async current(collection: VectorCollectionDoc): Promise<StoredSchema | null> {
    return present(collection, await this.latest(collection._id));
  }

  /**
   * Writes `content` (or, for null, a tombstone) as the next version. With
   * `ifMatch`, the write happens only if it names the schema in force, else
   * 412 SCHEMA_VERSION_MISMATCH carrying the current ETag.
   */
  async write(
    collection: VectorCollectionDoc,
    content: SchemaContent | null,
    ifMatch: IfMatch | null,
  ): Promise<StoredSchema | null> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const latest = await this.latest(collection._id);
      const current = present(collection, latest);
      if (ifMatch && !ifMatch.matches(current?.etag ?? null)) {
        throw mismatch(current);
      }
      const version = (latest?.version ?? 0) + 1;
      const at = new Date(this.now());
      const doc: PayloadSchemaDoc = {
        _id: schemaVersionId(collection._id, version),
        collectionId: collection._id,
        version,
        schemaJson: content?.schemaJson ?? null,
        enforcementMode: content?.enforcementMode ?? null,
        description: content?.description ?? null,
        createdAt: current?.createdAt ?? at,
        updatedAt: at,
      };
      try {
        await this.docs.insertOne(doc);
      } catch (err) {
        if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
        // Another writer took this version first.
        if (ifMatch) throw mismatch(await this.current(collection));
        continue;
      }
      // Pruning leaves only the newest version, so this version's number could
      // have been free again had two later writes landed between our read and
      // our insert; a higher version then means this write is not the latest.
      const newer = await this.docs.findOne({
        collectionId: collection._id,
        version: { $gt: version },
      });
      if (newer) {
        await this.docs.deleteOne({ _id: doc._id });
        if (ifMatch) throw mismatch(await this.current(collection));
        continue;
      }
      await this.docs.deleteMany({ collectionId: collection._id, version: { $lt: version } });
      return present(collection, doc);
    }
    throw new ServiceUnavailable('The payload schema is being changed concurrently; retry.');
  }

  private async latest(collectionId: string): Promise<PayloadSchemaDoc | null> {
    const [doc] = await this.docs.find({ collectionId }).sort({ version: -1 }).limit(1).toArray();
    return doc ?? null;
  }
}

/** Removes every version of a collection's schema (the collection is being deleted). */
export async function deleteSchemasOf(
  docs: Collection<PayloadSchemaDoc>,
  collectionId: string,
): Promise<void> {
  await docs.deleteMany({ collectionId });
}

function present(
  collection: VectorCollectionDoc,
  doc: PayloadSchemaDoc | null,
): StoredSchema | null {
  if (!doc || doc.schemaJson === null || doc.enforcementMode === null) return null;
  return {
    collectionId: doc.collectionId,
    version: doc.version,
    etag: schemaEtag(collection, doc.version),
    schema: JSON.parse(doc.schemaJson) as Record<string, unknown>,
    schemaJson: doc.schemaJson,
    enforcementMode: doc.enforcementMode,
    description: doc.description,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

function mismatch(current: StoredSchema | null): SchemaVersionMismatch {
  return new SchemaVersionMismatch(
    current
      ? `If-Match does not name the current schema (${current.etag}).`
      : 'If-Match names a schema, but none is defined.',
    { fields: { current_etag: current?.etag ?? null } },
  );
}

/**
 * Payload schemas as MongoDB keeps them. Each write of a collection's schema
 * (PUT or DELETE) inserts a new version document whose `_id` is
 * `<collection id>:<version>`: the unique insert is what decides a
 * compare-and-set race, since FerretDB has no transactions and its updates are
 * read-modify-write. The highest version is the one in force; a DELETE inserts
 * a tombstone (`schemaJson: null`) so versions never repeat and an old ETag can
 * never match a later schema. Older versions are pruned after each write.
 *
 * The JSON Schema is stored as JSON text: its `$schema`/`$ref` keys and
 * arbitrary property names (dots included) are not storable as document keys
 * on FerretDB.
 */
import type { VectorCollectionDoc } from '../collections/model.js';

/** How writes are checked against the schema. */
export const ENFORCEMENT_MODES = ['off', 'warn', 'strict'] as const;

/** One of {@link ENFORCEMENT_MODES}. */
export type EnforcementMode = (typeof ENFORCEMENT_MODES)[number];

/** One version of a collection's payload schema (or a tombstone). */
export interface PayloadSchemaDoc {
  /** `<collection id>:<version>`. */
  _id: string;
  collectionId: string;
  version: number;
  /** The JSON Schema as JSON text; null in a tombstone left by DELETE. */
  schemaJson: string | null;
  enforcementMode: EnforcementMode | null;
  description: string | null;
  /** When the schema was first defined (carried over by later versions). */
  createdAt: Date;
  /** When this version was written. */
  updatedAt: Date;
}

/** A schema in force: a version document that is not a tombstone. */
export interface StoredSchema {
  collectionId: string;
  version: number;
  /** The strong ETag, quotes included, as sent in the `ETag` header. */
  etag: string;
  schema: Record<string, unknown>;
  schemaJson: string;
  enforcementMode: EnforcementMode;
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The MongoDB id of one version. */
export function schemaVersionId(collectionId: string, version: number): string {
  return `${collectionId}:${version}`;
}

/**
 * The ETag of a schema version. The collection's creation time is part of it,
 * so an ETag read before a collection was deleted and re-created under the
 * same name never matches the new collection's schema, whose versions start
 * again at 1.
 */
export function schemaEtag(collection: VectorCollectionDoc, version: number): string {
  return `"${version}-${collection.createdAt.getTime().toString(36)}"`;
}

/**
 * Tenancy for `lookup_from`: the engine's query API can read vectors from
 * another collection named in the body (`{lookup_from: {collection, vector?}}`,
 * at the top, in `prefetch` and in batch searches). That name is the
 * caller's bare name like any other, so it is rewritten to the engine name
 * of the caller's collection of that name, in the scope of the collection
 * the path names; a name that is not a bare collection name is refused, so no
 * body can reach another tenant's collection.
 */
import { VectorValidationError } from '../../errors/catalogue.js';
import {
  COLLECTION_NAME,
  engineCollectionName,
  type CollectionScope,
} from '../collections/model.js';

/** Rewrites every `lookup_from.collection` in `body` (in place) for `scope`. */
export function rewriteLookups(body: unknown, scope: CollectionScope): void {
  if (Array.isArray(body)) {
    for (const item of body) rewriteLookups(item, scope);
    return;
  }
  if (typeof body !== 'object' || body === null) return;
  const record = body as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    if (key === 'lookup_from' && typeof value === 'object' && value !== null) {
      const lookup = value as Record<string, unknown>;
      if (typeof lookup.collection !== 'string' || !COLLECTION_NAME.test(lookup.collection)) {
        throw new VectorValidationError(
          'lookup_from.collection must be one of your collection names ([a-zA-Z0-9_-], 1 to 100).',
          { fields: { field: 'lookup_from.collection' } },
        );
      }
      lookup.collection = engineCollectionName(scope, lookup.collection);
    } else if (typeof value === 'object' && value !== null && !isNumberArray(value)) {
      rewriteLookups(value, scope);
    }
  }
}

/** A vector: nothing to look into. */
function isNumberArray(value: object): boolean {
  return Array.isArray(value) && typeof value[0] === 'number';
}

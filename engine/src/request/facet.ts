/** Reader of a `POST /collections/{c}/facet` body. */
import { formatError } from '../errors.js';
import { parseFilter } from '../filter/parse.js';
import type { Filter } from '../filter/types.js';
import { parseJsonPath } from '../json-path.js';
import { objectBody, optional, readBool } from './fields.js';
import { readLimit } from './queries.js';
import { expectFields, refuseFields } from './strict.js';

/** A facet request: the key, how many values, and which points. */
export interface FacetRequest {
  key: string;
  limit: number;
  filter?: Filter;
}

/** A facet body (`exact` is accepted: the engine always counts exactly). */
export function readFacet(raw: unknown): FacetRequest {
  const body = objectBody(raw);
  expectFields(body, ['shard_key', 'key', 'limit', 'filter', 'exact']);
  refuseFields(body, ['shard_key']);
  const key = optional(body, 'key');
  if (key === undefined) throw formatError('missing field `key`');
  if (typeof key !== 'string') throw formatError('key: invalid type, expected a string');
  parseJsonPath(key);
  readBool(body, 'exact', false);
  const filter = parseFilter(body.filter);
  return { key, limit: readLimit(body), ...(filter ? { filter } : {}) };
}

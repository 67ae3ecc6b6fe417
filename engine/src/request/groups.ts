/**
 * Readers of the grouped reads: `points/query/groups` (a query's stage) and
 * `points/search/groups` (a search's vector), with `group_by`, `group_size` and `limit`
 * (groups). `with_lookup` reads another collection by group id; this engine refuses it.
 */
import { formatError, validationError } from '../errors.js';
import type { Grouping } from '../query/groups.js';
import type { Stage } from '../query/plan.js';
import type { Collection } from '../store/collection.js';
import { objectBody, optional, readCount } from './fields.js';
import type { Body } from './fields.js';
import { MAX_LIMIT, readPresentation, readSearchCore } from './queries.js';
import type { Presentation } from './queries.js';
import { QUERY_GROUPS_FIELDS, readQueryStage } from './query.js';
import type { CollectionLookup } from './query.js';
import { expectFields, refuseFields } from './strict.js';

/** A grouped read: the stage to run, how to group, how to print. */
export type GroupsRequest = { stage: Stage; grouping: Grouping } & Presentation;

/** The grouping fields of a groups body. */
function readGrouping(body: Body): Grouping {
  const groupBy = optional(body, 'group_by');
  if (groupBy === undefined) throw formatError('missing field `group_by`');
  if (typeof groupBy !== 'string') throw formatError('group_by: invalid type, expected a string');
  if (groupBy === '') throw validationError('group_by: must not be empty');
  refuseFields(body, ['with_lookup']);
  return {
    groupBy,
    groupSize: readCount(body, 'group_size', 3, 1, MAX_LIMIT),
    groups: readCount(body, 'limit', 10, 1, MAX_LIMIT),
  };
}

/** A `POST .../points/query/groups` body. */
export function readQueryGroups(
  raw: unknown,
  collection: Collection,
  lookup: CollectionLookup,
): GroupsRequest {
  const body = objectBody(raw);
  expectFields(body, QUERY_GROUPS_FIELDS);
  refuseFields(body, ['shard_key']);
  const grouping = readGrouping(body);
  const stage = readQueryStage(body, collection, lookup, grouping.groups);
  return { stage, grouping, ...readPresentation(body) };
}

const SEARCH_GROUPS_FIELDS = [
  'shard_key',
  'vector',
  'filter',
  'params',
  'with_payload',
  'with_vector',
  'with_vectors',
  'score_threshold',
  'group_by',
  'group_size',
  'limit',
  'with_lookup',
];

/** A `POST .../points/search/groups` body. */
export function readSearchGroups(raw: unknown, collection: Collection): GroupsRequest {
  const body = objectBody(raw);
  expectFields(body, SEARCH_GROUPS_FIELDS);
  refuseFields(body, ['shard_key']);
  if (optional(body, 'group_size') === undefined) throw formatError('missing field `group_size`');
  const grouping = readGrouping(body);
  const search = readSearchCore(body, collection);
  const stage: Stage = {
    prefetch: [],
    scoring: { kind: 'nearest', vector: search.vector },
    ...(search.filter ? { filter: search.filter } : {}),
    limit: grouping.groups,
    ...(search.scoreThreshold === undefined ? {} : { scoreThreshold: search.scoreThreshold }),
    exact: search.exact,
  };
  return { stage, grouping, withPayload: search.withPayload, withVector: search.withVector };
}

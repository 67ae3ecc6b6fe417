/**
 * Point reads: retrieve (batch and single), search and search batch, the query API
 * (query, batch, groups), search groups, scroll, count and facet. The legacy recommend and
 * discover routes and the search matrix answer a 400 that says so.
 */
import { notFound } from '../errors.js';
import { presentRecord, presentScored } from '../http/present.js';
import type { Router } from '../http/router.js';
import { parsePointId } from '../point-id.js';
import { facet } from '../query/facet.js';
import { groupStage } from '../query/groups.js';
import { runStage } from '../query/run.js';
import { readFacet } from '../request/facet.js';
import { readQueryGroups, readSearchGroups } from '../request/groups.js';
import type { GroupsRequest } from '../request/groups.js';
import {
  readBatch,
  readCountRequest,
  readRetrieve,
  readScroll,
  readSearch,
} from '../request/queries.js';
import { readQuery } from '../request/query.js';
import type { CollectionLookup } from '../request/query.js';
import { notSupported } from '../request/strict.js';
import { count, scroll } from '../search/scroll.js';
import { search } from '../search/search.js';
import type { Collection } from '../store/collection.js';
import type { Engine } from '../store/engine.js';

function runSearch(collection: Collection, body: unknown) {
  const request = readSearch(body, collection);
  return search(collection, request).map((hit) =>
    presentScored(collection, hit.slot, hit.score, request),
  );
}

function runQuery(collection: Collection, body: unknown, lookup: CollectionLookup) {
  const request = readQuery(body, collection, lookup);
  const hits = runStage(collection, request, request.offset);
  return {
    points: hits.map((h) => presentScored(collection, h.slot, h.score, request, h.orderValue)),
  };
}

function runGroups(collection: Collection, request: GroupsRequest) {
  const groups = groupStage(collection, request.stage, request.grouping);
  return {
    groups: groups.map((group) => ({
      id: group.id,
      hits: group.hits.map((h) =>
        presentScored(collection, h.slot, h.score, request, h.orderValue),
      ),
    })),
  };
}

/** Qdrant routes this engine leaves out, and what to use instead. */
const LEFT_OUT: [string, string][] = [
  ['/points/recommend', 'use `points/query` with `{"recommend": ...}`'],
  ['/points/recommend/batch', 'use `points/query/batch` with `{"recommend": ...}`'],
  ['/points/recommend/groups', 'use `points/query/groups` with `{"recommend": ...}`'],
  ['/points/discover', 'use `points/query` with `{"discover": ...}`'],
  ['/points/discover/batch', 'use `points/query/batch` with `{"discover": ...}`'],
  ['/points/search/matrix/pairs', 'no distance matrix'],
  ['/points/search/matrix/offsets', 'no distance matrix'],
];

/** Registers the read routes. */
export function readRoutes(router: Router, engine: Engine): void {
  const lookup: CollectionLookup = (name) => engine.get(name);

  router.on('POST', '/collections/{name}/points', ({ params, body }) => {
    const collection = engine.get(params.name!);
    const request = readRetrieve(body);
    const seen = new Set<number>();
    const records = [];
    for (const id of request.ids) {
      const slot = collection.points.slotOf(id);
      if (slot === undefined || seen.has(slot)) continue;
      seen.add(slot);
      records.push(presentRecord(collection, slot, request));
    }
    return records;
  });

  router.on('GET', '/collections/{name}/points/{id}', ({ params }) => {
    const collection = engine.get(params.name!);
    const raw = params.id!;
    const id = parsePointId(/^\d+$/.test(raw) ? Number(raw) : raw);
    const slot = collection.points.slotOf(id);
    if (slot === undefined) throw notFound(`Point with id ${id} does not exists!`);
    return presentRecord(collection, slot, { withPayload: true, withVector: true });
  });

  router.on('POST', '/collections/{name}/points/search', ({ params, body }) =>
    runSearch(engine.get(params.name!), body),
  );

  router.on('POST', '/collections/{name}/points/search/batch', ({ params, body }) => {
    const collection = engine.get(params.name!);
    return readBatch(body).map((s) => runSearch(collection, s));
  });

  router.on('POST', '/collections/{name}/points/search/groups', ({ params, body }) => {
    const collection = engine.get(params.name!);
    return runGroups(collection, readSearchGroups(body, collection));
  });

  router.on('POST', '/collections/{name}/points/query', ({ params, body }) =>
    runQuery(engine.get(params.name!), body ?? {}, lookup),
  );

  router.on('POST', '/collections/{name}/points/query/batch', ({ params, body }) => {
    const collection = engine.get(params.name!);
    return readBatch(body).map((q) => runQuery(collection, q, lookup));
  });

  router.on('POST', '/collections/{name}/points/query/groups', ({ params, body }) => {
    const collection = engine.get(params.name!);
    return runGroups(collection, readQueryGroups(body, collection, lookup));
  });

  router.on('POST', '/collections/{name}/points/scroll', ({ params, body }) => {
    const collection = engine.get(params.name!);
    const request = readScroll(body);
    const page = scroll(collection, request);
    return {
      points: page.slots.map((slot, i) =>
        presentRecord(collection, slot, request, page.orderValues?.[i]),
      ),
      next_page_offset: page.nextPageOffset,
    };
  });

  router.on('POST', '/collections/{name}/points/count', ({ params, body }) => {
    const collection = engine.get(params.name!);
    return { count: count(collection, readCountRequest(body).filter) };
  });

  router.on('POST', '/collections/{name}/facet', ({ params, body }) => {
    const collection = engine.get(params.name!);
    const request = readFacet(body);
    return { hits: facet(collection, request.key, request.limit, request.filter) };
  });

  for (const [path, instead] of LEFT_OUT) {
    router.on('POST', `/collections/{name}${path}`, ({ params }) => {
      engine.get(params.name!);
      throw notSupported(`POST /collections/{name}${path}`, instead);
    });
  }
}

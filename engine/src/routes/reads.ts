/**
 * Point reads: retrieve (batch and single), search and search batch, query and query
 * batch, scroll and count.
 */
import { formatError, notFound } from '../errors.js';
import { parseFilter } from '../filter/parse.js';
import { presentRecord, presentScored } from '../http/present.js';
import type { Router } from '../http/router.js';
import { parsePointId } from '../point-id.js';
import { objectBody, readBool } from '../request/fields.js';
import { readQuery, readRetrieve, readScroll, readSearch } from '../request/queries.js';
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

function runQuery(collection: Collection, body: unknown) {
  const plan = readQuery(body, collection);
  if (plan.kind === 'nearest') {
    const hits = search(collection, plan.search);
    return { points: hits.map((h) => presentScored(collection, h.slot, h.score, plan)) };
  }
  // Without a vector Qdrant lists points in scroll order with a score of 1.
  const page = scroll(collection, {
    ...(plan.filter ? { filter: plan.filter } : {}),
    limit: plan.offset + plan.limit,
    ...(plan.kind === 'order_by' ? { orderBy: plan.orderBy } : {}),
  });
  const points = page.slots.map((slot, i) =>
    presentScored(collection, slot, 1, plan, page.orderValues?.[i]),
  );
  return { points: points.slice(plan.offset) };
}

function batchOf(body: unknown, key: string): unknown[] {
  const list = objectBody(body)[key];
  if (!Array.isArray(list)) throw formatError(`missing field \`${key}\``);
  return list;
}

/** Registers the read routes. */
export function readRoutes(router: Router, engine: Engine): void {
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
    return batchOf(body, 'searches').map((s) => runSearch(collection, s));
  });

  router.on('POST', '/collections/{name}/points/query', ({ params, body }) =>
    runQuery(engine.get(params.name!), body ?? {}),
  );

  router.on('POST', '/collections/{name}/points/query/batch', ({ params, body }) => {
    const collection = engine.get(params.name!);
    return batchOf(body, 'searches').map((q) => runQuery(collection, q));
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
    const request = objectBody(body ?? {});
    readBool(request, 'exact', true);
    return { count: count(collection, parseFilter(request.filter)) };
  });
}

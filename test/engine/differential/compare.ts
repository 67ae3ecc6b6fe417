/**
 * Comparison of the engine's answers with qdrant-edge's: exact for ids, counts, payloads
 * and page offsets; within float tolerance for scores and vectors (both compute in
 * float32, in a different order). Equal scores may come in either order, so a run of
 * tied scores is compared as a set, and the last run (which may continue past the limit)
 * and after an offset the first run (which may begin before it) only by their scores.
 */
import { isDeepStrictEqual } from 'node:util';

/** A point as either side returns it. */
export interface PointOut {
  id: number | string;
  score?: number;
  payload?: unknown;
  vector?: number[] | null;
  order_value?: number;
}

const close = (a: number, b: number, tolerance: number) =>
  Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b));

/** Throws a readable error naming the first difference, if any. */
function fail(what: string, engine: unknown, edge: unknown): never {
  throw new Error(
    `${what}\n  engine: ${JSON.stringify(engine)}\n  qdrant-edge: ${JSON.stringify(edge)}`,
  );
}

function comparePointBodies(engine: PointOut, edge: PointOut, where: string): void {
  if (!isDeepStrictEqual(engine.payload ?? null, edge.payload ?? null)) {
    fail(`${where}: payload of ${engine.id} differs`, engine.payload, edge.payload);
  }
  const ev = engine.vector ?? null;
  const qv = edge.vector ?? null;
  if ((ev === null) !== (qv === null)) fail(`${where}: vector presence differs`, ev, qv);
  if (ev && qv) {
    if (ev.length !== qv.length || ev.some((x, i) => !close(x, qv[i]!, 1e-5))) {
      fail(`${where}: vector of ${engine.id} differs`, ev, qv);
    }
  }
}

/** Compares ranked lists (search and query results, or order_by pages by order value). */
export function compareRanked(
  engine: PointOut[],
  edge: PointOut[],
  where: string,
  key: 'score' | 'order_value' = 'score',
  offset = 0,
): void {
  if (engine.length !== edge.length) fail(`${where}: result count differs`, engine, edge);
  const tolerance = key === 'score' ? 1e-4 : 0;
  for (let i = 0; i < engine.length; i++) {
    if (!close(engine[i]![key]!, edge[i]![key]!, tolerance)) {
      fail(`${where}: ${key} at rank ${i} differs`, engine, edge);
    }
  }
  // Runs of tied values: the same ids in any order, except the last run (cut by the limit).
  let start = 0;
  for (let i = 1; i <= edge.length; i++) {
    if (i < edge.length && close(edge[i]![key]!, edge[start]![key]!, tolerance)) continue;
    if (i < edge.length && !(start === 0 && offset > 0)) {
      const ids = (list: PointOut[]) =>
        list
          .slice(start, i)
          .map((p) => JSON.stringify(p.id))
          .sort();
      if (!isDeepStrictEqual(ids(engine), ids(edge))) {
        fail(`${where}: ids ranked ${start}..${i - 1} differ`, engine, edge);
      }
    }
    start = i;
  }
  const byId = new Map(edge.map((p) => [JSON.stringify(p.id), p]));
  for (const point of engine) {
    const other = byId.get(JSON.stringify(point.id));
    if (other) comparePointBodies(point, other, where);
  }
}

/** Compares lists that must match in order (scroll pages, retrieve). */
export function compareExact(engine: PointOut[], edge: PointOut[], where: string): void {
  const ids = (list: PointOut[]) => list.map((p) => p.id);
  if (!isDeepStrictEqual(ids(engine), ids(edge)))
    fail(`${where}: ids differ`, ids(engine), ids(edge));
  engine.forEach((point, i) => comparePointBodies(point, edge[i]!, where));
}

/** Compares two plain values exactly. */
export function compareValue(engine: unknown, edge: unknown, where: string): void {
  if (!isDeepStrictEqual(engine, edge)) fail(`${where}: values differ`, engine, edge);
}

/** A group of a groups answer. */
export interface GroupOut {
  id: string | number;
  hits: PointOut[];
}

/**
 * Compares groups answers: groups come best first (by their best point), so the best
 * scores must match rank by rank; the groups themselves are matched by id (groups whose
 * best points tie may come in either order, and the last of them may differ when the
 * tie straddles the limit), and each group's points are compared as a ranked list.
 */
export function compareGroups(engine: GroupOut[], edge: GroupOut[], where: string): void {
  if (engine.length !== edge.length) fail(`${where}: group count differs`, engine, edge);
  const best = (g: GroupOut) => g.hits[0]?.score ?? 0;
  for (let i = 0; i < engine.length; i++) {
    if (!close(best(engine[i]!), best(edge[i]!), 1e-4)) {
      fail(`${where}: best score of group ${i} differs`, engine, edge);
    }
  }
  const lastBest = edge.length > 0 ? best(edge[edge.length - 1]!) : 0;
  const byId = new Map(edge.map((g) => [JSON.stringify(g.id), g]));
  for (const group of engine) {
    const other = byId.get(JSON.stringify(group.id));
    if (!other) {
      // Only a group tied with the last one may be another group of the same score.
      if (close(best(group), lastBest, 1e-4)) continue;
      fail(
        `${where}: group ${JSON.stringify(group.id)} is not in qdrant-edge's answer`,
        engine,
        edge,
      );
    }
    compareRanked(group.hits, other.hits, `${where} group ${JSON.stringify(group.id)}`);
  }
}

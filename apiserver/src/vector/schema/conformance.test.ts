import { describe, expect, test } from '@jest/globals';
import { ConformanceTally } from './conformance.js';
import { scanPoints, type PageReader, type PointPayload } from './scan.js';

/** A page reader over points held in memory, in id order as the engine's scroll. */
function pagesOf(points: PointPayload[]): PageReader {
  return async (offset, limit) => {
    const start = offset === null ? 0 : points.findIndex((p) => p.id === offset);
    const page = points.slice(start, start + limit);
    return { points: page, next: points[start + limit]?.id ?? null };
  };
}

const points = Array.from({ length: 25 }, (_, i) => ({ id: i, payload: { n: i } }));

describe('scanPoints', () => {
  test('reaches the end of the collection: exact', async () => {
    const seen: number[] = [];
    const scan = await scanPoints(
      pagesOf(points),
      { maxPoints: Infinity, budgetMs: 1000, pageSize: 10 },
      (p) => seen.push(p.id as number),
    );
    expect(scan).toEqual(
      expect.objectContaining({
        exact: true,
        stopped_because: 'end_of_collection',
        points_scanned: 25,
      }),
    );
    expect(seen).toEqual(points.map((p) => p.id));
  });

  test('stops at the sample size with a prefix of the collection', async () => {
    const seen: number[] = [];
    const scan = await scanPoints(
      pagesOf(points),
      { maxPoints: 15, budgetMs: 1000, pageSize: 10 },
      (p) => seen.push(p.id as number),
    );
    expect(scan).toEqual(
      expect.objectContaining({ exact: false, stopped_because: 'sample_size', points_scanned: 15 }),
    );
    expect(seen).toEqual(points.slice(0, 15).map((p) => p.id));
  });

  test('counts a sample that is the whole collection as exact', async () => {
    const scan = await scanPoints(
      pagesOf(points),
      { maxPoints: 25, budgetMs: 1000, pageSize: 25 },
      () => {},
    );
    expect(scan.exact).toBe(true);
  });

  test('stops after a page once the time budget is spent', async () => {
    let clock = 0;
    const scan = await scanPoints(
      pagesOf(points),
      { maxPoints: Infinity, budgetMs: 2, pageSize: 10, now: () => (clock += 3) },
      () => {},
    );
    expect(scan).toEqual(
      expect.objectContaining({ exact: false, stopped_because: 'time_budget', points_scanned: 10 }),
    );
  });
});

describe('ConformanceTally', () => {
  test('counts conforming points, responsible fields and a capped sample of offenders', () => {
    const tally = new ConformanceTally(2);
    tally.add(1, null);
    tally.add(2, { field: 'tags[0]', message: 'tags[0] must be string' });
    tally.add(3, { field: 'tags[4]', message: 'tags[4] must be string' });
    tally.add(4, { field: 'price', message: 'price must be number' });
    const scan = {
      exact: true,
      stopped_because: 'end_of_collection' as const,
      points_scanned: 4,
      elapsed_ms: 1,
    };
    expect(tally.report(scan)).toEqual({
      scan,
      points_conforming: 1,
      points_violating: 3,
      conformance_ratio: 0.25,
      fields: [
        { field: 'tags[]', points: 2 },
        { field: 'price', points: 1 },
      ],
      offending_point_ids: [2, 3],
      examples: [
        { id: 2, field: 'tags[0]', message: 'tags[0] must be string' },
        { id: 3, field: 'tags[4]', message: 'tags[4] must be string' },
      ],
    });
  });

  test('reports an empty scan as fully conforming', () => {
    const scan = {
      exact: true,
      stopped_because: 'end_of_collection' as const,
      points_scanned: 0,
      elapsed_ms: 0,
    };
    expect(new ConformanceTally(10).report(scan).conformance_ratio).toBe(1);
  });
});

/**
 * Durability of the engine process: data survives a clean restart (snapshot) and a
 * crash (SIGKILL) in the middle of a stream of upserts loses no acknowledged write.
 */
import { afterEach, expect, test } from '@jest/globals';
import { call, startEngine } from './support/engine-process.js';
import type { EngineProcess } from './support/engine-process.js';
import { waitFor } from '../harness/wait.js';

const running: EngineProcess[] = [];
afterEach(async () => {
  for (const engine of running.splice(0)) await engine.dispose();
});

async function start(dataDir?: string, env?: Record<string, string>) {
  const engine = await startEngine({ ...(dataDir ? { dataDir } : {}), ...(env ? { env } : {}) });
  running.push(engine);
  return engine;
}

async function countOf(url: string): Promise<number> {
  const res = await call(url, 'POST', '/collections/d/points/count', { exact: true });
  return (res.body.result as { count: number }).count;
}

test('a crash during upserts keeps every acknowledged point', async () => {
  const first = await start();
  await call(first.url, 'PUT', '/collections/d', { vectors: { size: 4, distance: 'Cosine' } });
  const acknowledged: number[] = [];
  let stop = false;
  let answered = () => {};
  // Several writers at once, so the crash lands while writes are in flight.
  const writer = async (w: number) => {
    for (let i = 0; !stop; i++) {
      const id = w * 1_000_000 + i;
      try {
        const res = await call(first.url, 'PUT', '/collections/d/points?wait=true', {
          points: [{ id, vector: [1, i, w, 1], payload: { i } }],
        });
        if (res.status === 200) acknowledged.push(id);
        answered();
      } catch {
        return; // the connection died with the process
      }
    }
  };
  const writers = [0, 1, 2, 3].map(writer);
  // The crash comes once many writes were acknowledged, while the writers keep writing.
  await waitFor('200 acknowledged writes', () => acknowledged.length >= 200, {
    wakeOn: (changed) => {
      answered = changed;
      return () => (answered = () => {});
    },
    lastSeen: () => acknowledged.length,
  });
  await first.kill();
  stop = true;
  await Promise.all(writers);
  expect(acknowledged.length).toBeGreaterThan(10);

  const second = await start(first.dataDir);
  const ids = [...acknowledged];
  const res = await call(second.url, 'POST', '/collections/d/points', { ids, with_payload: true });
  const found = res.body.result as { id: number; payload: { i: number } }[];
  expect(found.map((p) => p.id).sort((a, b) => a - b)).toEqual(ids.sort((a, b) => a - b));
  expect(found.every((p) => p.id % 1_000_000 === p.payload.i)).toBe(true);
});

test('a clean restart keeps points, payload edits, deletes and payload indexes', async () => {
  // A 1 MiB log limit makes the run snapshot and restart its log along the way.
  const first = await start(undefined, { SVC_ENGINE_SNAPSHOT_MB: '1' });
  await call(first.url, 'PUT', '/collections/d', { vectors: { size: 16, distance: 'Dot' } });
  for (let batch = 0; batch < 20; batch++) {
    const points = Array.from({ length: 200 }, (_, i) => ({
      id: batch * 200 + i,
      vector: Array.from({ length: 16 }, (_, d) => (i + d) / 16),
      payload: { batch, text: 'x'.repeat(100) },
    }));
    await call(first.url, 'PUT', '/collections/d/points?wait=true', { points });
  }
  await call(first.url, 'POST', '/collections/d/points/delete?wait=true', {
    filter: { must: [{ key: 'batch', match: { value: 3 } }] },
  });
  await call(first.url, 'POST', '/collections/d/points/payload/clear?wait=true', { points: [0] });
  await call(first.url, 'PUT', '/collections/d/index?wait=true', {
    field_name: 'batch',
    field_schema: 'integer',
  });
  await first.stop();

  const second = await start(first.dataDir);
  expect(await countOf(second.url)).toBe(3800);
  const point = await call(second.url, 'GET', '/collections/d/points/0');
  expect((point.body.result as { payload: unknown }).payload).toEqual({});
  const info = (await call(second.url, 'GET', '/collections/d')).body.result as {
    payload_schema: unknown;
  };
  // Point 0's payload was cleared, so it has no `batch` to index.
  expect(info.payload_schema).toEqual({ batch: { data_type: 'integer', points: 3799 } });
  await second.kill();

  // And once more after a crash, from the snapshot plus whatever log followed it.
  const third = await start(first.dataDir);
  expect(await countOf(third.url)).toBe(3800);
});

test('points overwritten many times (vacuumed in between) read the same before and after a restart', async () => {
  // An index threshold below the collection's size, so vacuums also renumber an HNSW graph.
  const first = await start(undefined, { SVC_ENGINE_INDEX_THRESHOLD: '500' });
  await call(first.url, 'PUT', '/collections/d', { vectors: { size: 8, distance: 'Euclid' } });
  await call(first.url, 'PUT', '/collections/d/index?wait=true', {
    field_name: 'round',
    field_schema: 'integer',
  });
  await call(first.url, 'PUT', '/collections/d/index?wait=true', {
    field_name: 'id',
    field_schema: 'integer',
  });
  const vector = (id: number, round: number) =>
    Array.from({ length: 8 }, (_, d) => Math.sin(id * 7 + d + round * 13));
  // Ten rounds over the same 1,500 ids retire 13,500 slots: many times the vacuum threshold.
  for (let round = 0; round < 10; round++) {
    const points = Array.from({ length: 1500 }, (_, id) => ({
      id,
      vector: vector(id, round),
      payload: { round, id },
    }));
    const res = await call(first.url, 'PUT', '/collections/d/points?wait=true', { points });
    expect(res.status).toBe(200);
  }
  await call(first.url, 'POST', '/collections/d/points/delete?wait=true', {
    points: Array.from({ length: 500 }, (_, i) => i * 3),
  });

  const read = async (url: string) => {
    const count = await countOf(url);
    const sample = await call(url, 'POST', '/collections/d/points', {
      ids: [1, 2, 3, 700, 1499],
      with_payload: true,
      with_vector: true,
    });
    const filtered = await call(url, 'POST', '/collections/d/points/count', {
      filter: { must: [{ key: 'round', match: { value: 9 } }] },
      exact: true,
    });
    // Exact search, so the answer does not depend on which graph a process built.
    const nearest = await call(url, 'POST', '/collections/d/points/search', {
      vector: vector(700, 9),
      limit: 3,
      params: { exact: true },
    });
    // Filtered through the payload index on `id`: candidates come from the index's slots.
    const indexed = await call(url, 'POST', '/collections/d/points/search', {
      vector: vector(0, 0),
      filter: { must: [{ key: 'id', range: { gte: 1400, lte: 1402 } }] },
      limit: 10,
      with_payload: true,
    });
    return {
      indexed: (indexed.body.result as { id: number }[]).map((hit) => hit.id).sort((a, b) => a - b),
      count,
      sample: sample.body.result,
      filtered: filtered.body.result,
      nearest: nearest.body.result,
    };
  };
  const before = await read(first.url);
  expect(before.count).toBe(1000);
  expect(before.filtered).toEqual({ count: 1000 });
  const sample = before.sample as { id: number; payload: { round: number }; vector: number[] }[];
  expect(sample.map((p) => p.id).sort((a, b) => a - b)).toEqual([1, 2, 700, 1499]);
  for (const p of sample) {
    expect(p.payload).toEqual({ round: 9, id: p.id });
    p.vector.forEach((x, d) => expect(x).toBeCloseTo(vector(p.id, 9)[d]!, 5));
  }
  expect((before.nearest as { id: number }[])[0]!.id).toBe(700);
  expect(before.indexed).toEqual([1400, 1402]); // 1401 = 467 * 3 was deleted

  await first.stop();
  const second = await start(first.dataDir, { SVC_ENGINE_INDEX_THRESHOLD: '500' });
  expect(await read(second.url)).toEqual(before);
});

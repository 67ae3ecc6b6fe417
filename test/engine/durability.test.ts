/**
 * Durability of the engine process: data survives a clean restart (snapshot) and a
 * crash (SIGKILL) in the middle of a stream of upserts loses no acknowledged write.
 */
import { afterEach, expect, test } from '@jest/globals';
import { call, startEngine } from './support/engine-process.js';
import type { EngineProcess } from './support/engine-process.js';

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
  // Several writers at once, so the crash lands while writes are in flight.
  const writer = async (w: number) => {
    for (let i = 0; !stop; i++) {
      const id = w * 1_000_000 + i;
      try {
        const res = await call(first.url, 'PUT', '/collections/d/points?wait=true', {
          points: [{ id, vector: [1, i, w, 1], payload: { i } }],
        });
        if (res.status === 200) acknowledged.push(id);
      } catch {
        return; // the connection died with the process
      }
    }
  };
  const writers = [0, 1, 2, 3].map(writer);
  await new Promise((resolve) => setTimeout(resolve, 700));
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

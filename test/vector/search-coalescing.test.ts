/**
 * Concurrent searches of one collection reach the engine as batch requests
 * (apiserver/src/vector/search-coalescer.ts), and each caller still gets
 * exactly the answer it would have got alone: checked on the engine client
 * against the real engine (counting the requests it makes), and through the
 * gateway against a plane that never joins searches, over the same database
 * and engine.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { EngineClient, type EngineResponse } from '../../apiserver/src/vector/engine-client.js';
import { SearchCoalescer } from '../../apiserver/src/vector/search-coalescer.js';
import { startEngine, type EngineProcess } from '../engine/support/engine-process.js';
import {
  createCollection,
  createVectorCaller,
  startVectorServer,
  vcall,
  type VectorCaller,
  type VectorServer,
} from './vector-server.js';

/** An engine client that records the path of every request it sends. */
class CountingClient extends EngineClient {
  readonly paths: string[] = [];

  override send(method: string, path: string, body?: unknown, query = ''): Promise<EngineResponse> {
    this.paths.push(path);
    return super.send(method, path, body, query);
  }
}

/** An answer without the engine's `time`, the one field that differs from run to run. */
function timeless(res: EngineResponse): { status: number; body: unknown } {
  const body = JSON.parse(res.text) as Record<string, unknown>;
  delete body.time;
  return { status: res.status, body };
}

const DIM = 4;
const vector = (n: number) => [Math.sin(n), Math.cos(n), n % 3, 1];

describe('the engine client joins concurrent searches', () => {
  let engine: EngineProcess;
  let plain: EngineClient;
  const base = '/collections/joined';

  beforeAll(async () => {
    engine = await startEngine();
    plain = new EngineClient(engine.url, { apiKey: engine.apiKey });
    const created = await plain.send('PUT', base, { vectors: { size: DIM, distance: 'Cosine' } });
    expect(created.status).toBe(200);
    const points = Array.from({ length: 200 }, (_, id) => ({
      id,
      vector: vector(id),
      payload: { n: id, group: id % 5 },
    }));
    const upserted = await plain.send('PUT', `${base}/points`, { points }, 'wait=true');
    expect(upserted.status).toBe(200);
    // Points whose payloads make a 3.6 MB answer each: four of them would pass the 10 MB cap.
    const big = await plain.send('PUT', '/collections/big', {
      vectors: { size: DIM, distance: 'Cosine' },
    });
    expect(big.status).toBe(200);
    const text = 'x'.repeat(60_000);
    const heavy = Array.from({ length: 60 }, (_, id) => ({
      id,
      vector: vector(id),
      payload: { text },
    }));
    const filled = await plain.send(
      'PUT',
      '/collections/big/points',
      { points: heavy },
      'wait=true',
    );
    expect(filled.status).toBe(200);
  });
  afterAll(async () => {
    plain?.close();
    await engine?.dispose();
  });

  /** Sends `bodies` at once through a coalescing client; its answers and the paths it used. */
  async function together(
    path: string,
    bodies: unknown[],
  ): Promise<{ answers: EngineResponse[]; paths: string[] }> {
    const client = new CountingClient(engine.url, { apiKey: engine.apiKey });
    // Searches joined into batches, as the vector plane wraps its engine client.
    const joined = new SearchCoalescer(client);
    try {
      const answers = await Promise.all(
        bodies.map((b) =>
          joined.search(`${path}`, `${path}/batch`, Buffer.from(JSON.stringify(b)), ''),
        ),
      );
      return { answers, paths: client.paths };
    } finally {
      client.close();
    }
  }

  /** The answers to `bodies` sent one at a time, never joined. */
  async function alone(path: string, bodies: unknown[]): Promise<EngineResponse[]> {
    const answers: EngineResponse[] = [];
    for (const b of bodies) answers.push(await plain.send('POST', path, b));
    return answers;
  }

  const searches = Array.from({ length: 24 }, (_, n) => ({
    vector: vector(n * 7 + 1),
    limit: 1 + (n % 6),
    with_payload: n % 2 === 0,
    with_vector: n % 3 === 0,
    ...(n % 4 === 1 ? { filter: { must: [{ key: 'group', match: { value: n % 5 } }] } } : {}),
    ...(n % 5 === 2 ? { offset: 3, score_threshold: 0.1 } : {}),
  }));

  test('answers each search as the engine answers it alone, in fewer requests', async () => {
    const path = `${base}/points/search`;
    const { answers, paths } = await together(path, searches);
    expect(answers.map(timeless)).toEqual((await alone(path, searches)).map(timeless));
    expect(paths).toContain(`${path}/batch`);
    expect(paths.length).toBeLessThan(searches.length);
  });

  test('answers each query as the engine answers it alone', async () => {
    const path = `${base}/points/query`;
    const queries = searches.map(({ vector: v, limit, with_payload, filter }) => ({
      query: v,
      limit,
      with_payload,
      ...(filter ? { filter } : {}),
    }));
    const { answers, paths } = await together(path, queries);
    expect(answers.map(timeless)).toEqual((await alone(path, queries)).map(timeless));
    expect(paths).toContain(`${path}/batch`);
  });

  test('gives an invalid search its own error and the others their results', async () => {
    const path = `${base}/points/search`;
    const bodies = [searches[0], { vector: [1, 2], limit: 3 }, searches[1], { limit: 2 }];
    const { answers, paths } = await together(path, bodies);
    const expected = await alone(path, bodies);
    expect(answers.map((a) => a.status)).toEqual([200, 400, 200, 400]);
    expect(answers.map(timeless)).toEqual(expected.map(timeless));
    // The refused batch, then every search on its own.
    expect(paths).toEqual([`${path}/batch`, path, path, path, path]);
  });

  test('answers searches alone when their batch would pass the 10 MB cap', async () => {
    const path = '/collections/big/points/search';
    const bodies = [0, 1, 2, 3].map((n) => ({ vector: vector(n), limit: 60, with_payload: true }));
    const { answers, paths } = await together(path, bodies);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers.every((a) => a.text.length > 3_600_000)).toBe(true);
    expect(answers.map(timeless)).toEqual((await alone(path, bodies)).map(timeless));
    expect(paths).toEqual([`${path}/batch`, path, path, path, path]);
  });

  test('fails every joined search with 502 PROXY_ERROR when the engine cannot be reached', async () => {
    const client = new EngineClient('http://127.0.0.1:1');
    const joined = new SearchCoalescer(client);
    try {
      const answers = await Promise.allSettled(
        [0, 1, 2].map((n) =>
          joined.search(
            '/collections/x/points/search',
            '/collections/x/points/search/batch',
            Buffer.from(JSON.stringify(searches[n])),
            '',
          ),
        ),
      );
      for (const answer of answers) {
        expect(answer).toMatchObject({
          status: 'rejected',
          reason: expect.objectContaining({ status: 502, code: 'PROXY_ERROR' }),
        });
      }
    } finally {
      client.close();
    }
  });
});

describe('through the gateway', () => {
  let joined: VectorServer;
  let single: VectorServer;
  let a: VectorCaller;
  let b: VectorCaller;

  beforeAll(async () => {
    joined = await startVectorServer();
    single = await startVectorServer({
      db: joined.db,
      engineUrl: joined.engineUrl,
      engineApiKey: joined.engineApiKey,
      coalesceSearches: false,
    });
    a = await createVectorCaller(joined);
    b = await createVectorCaller(joined);
    // Both accounts have a collection named docs: one engine collection each.
    for (const [caller, owner] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      await createCollection(joined, caller.key, 'docs', DIM);
      const upsert = await vcall(joined, 'PUT', '/api/v1/collections/docs/points?wait=true', {
        key: caller.key,
        body: {
          points: Array.from({ length: 40 }, (_, id) => ({
            id,
            vector: vector(id),
            payload: { owner, n: id },
          })),
        },
      });
      expect(upsert.status).toBe(200);
    }
  });
  afterAll(async () => {
    await single?.close();
    await joined?.close();
  });

  /** Status and body of a search, without `time` and the request id. */
  async function searchOn(base: string, key: string, body: unknown) {
    const res = await vcall({ base }, 'POST', '/api/v1/collections/docs/points/search', {
      key,
      body,
    });
    const seen = { ...(res.body as Record<string, unknown>) };
    delete seen.time;
    const error = seen.error as Record<string, unknown> | undefined;
    if (error) seen.error = { ...error, request_id: 'id' };
    return { status: res.status, body: seen };
  }

  test('concurrent searches of two tenants each see only their own points, as alone', async () => {
    const requests = Array.from({ length: 30 }, (_, n) => ({
      caller: n % 2 ? a : b,
      body: {
        vector: vector(n),
        limit: 5,
        with_payload: true,
        ...(n % 3 === 0 ? { filter: { must: [{ key: 'n', range: { gte: 10 } }] } } : {}),
      },
    }));
    const answers = await Promise.all(
      requests.map((r) => searchOn(joined.base, r.caller.key, r.body)),
    );
    for (const [i, answer] of answers.entries()) {
      const owner = requests[i]!.caller === a ? 'a' : 'b';
      const hits = (answer.body as { result: { payload: { owner: string } }[] }).result;
      expect(hits).toHaveLength(5);
      expect(hits.every((h) => h.payload.owner === owner)).toBe(true);
      expect(answer).toEqual(
        await searchOn(single.base, requests[i]!.caller.key, requests[i]!.body),
      );
    }
  });

  test('an invalid search among concurrent ones gets the error it gets alone', async () => {
    const bodies = [
      { vector: vector(1), limit: 3 },
      { vector: [1, 2], limit: 3 },
      { vector: vector(2), limit: 3, filter: { must: [{ key: 'n', match: { value: 2 } }] } },
    ];
    const answers = await Promise.all(bodies.map((body) => searchOn(joined.base, a.key, body)));
    expect(answers.map((x) => x.status)).toEqual([200, 400, 200]);
    for (const [i, answer] of answers.entries()) {
      expect(answer).toEqual(await searchOn(single.base, a.key, bodies[i]));
    }
  });
});

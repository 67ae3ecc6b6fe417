/**
 * Bodies a fuzzer or an attacker sends, through the real gateway and engine:
 * deep nesting, numbers past a float's range, absurd limits and offsets,
 * bodies that are not declared JSON or are sent encoded, and member names
 * spelled with escapes to slip past a rewrite. Each is refused with the contract's envelope, never
 * a 500, and never stored.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import {
  createCollection,
  createVectorCaller,
  rawRequest,
  startVectorServer,
  vcall,
  type ErrorBody,
  type VectorCaller,
  type VectorServer,
} from './vector-server.js';

let server: VectorServer;
let owner: VectorCaller;

const path = (rest = '') => `/api/v1/collections/docs${rest}`;

beforeAll(async () => {
  server = await startVectorServer();
  owner = await createVectorCaller(server);
  await createCollection(server, owner.key, 'docs');
  await createCollection(server, owner.key, 'images');
  const res = await vcall(server, 'PUT', `${path('/points')}?wait=true`, {
    key: owner.key,
    body: {
      points: Array.from({ length: 5 }, (_, i) => ({ id: i, vector: [1, i, 2, 3], payload: {} })),
    },
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await server?.close();
});

/** Sends JSON text as it is (no re-serialising), declared as JSON unless `type` says otherwise. */
function send(method: string, target: string, text: string, type = 'application/json') {
  return vcall<ErrorBody>(server, method, target, {
    key: owner.key,
    rawBody: text,
    headers: { 'content-type': type },
  });
}

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('deeply nested JSON', () => {
  test.each([
    ['POST', path('/points/payload'), (deep: string) => `{"payload":{"x":${deep}},"points":[1]}`],
    [
      'PUT',
      path('/points'),
      (deep: string) => `{"points":[{"id":1,"vector":[1,2,3,4],"payload":{"x":${deep}}}]}`,
    ],
    ['PUT', path('/points'), (deep: string) => `{"shard_key":${deep},"points":[]}`],
    [
      'POST',
      path('/points/query'),
      (deep: string) => `{"query":[1,2,3,4],"lookup_from":{"collection":"images"},"x":${deep}}`,
    ],
    [
      'POST',
      path('/points/search'),
      (deep: string) => `{"vector":[1,2,3,4],"limit":1,"x":${deep}}`,
    ],
    ['PUT', '/api/v1/schema/docs', (deep: string) => `{"schema":${deep},"enforcement_mode":"off"}`],
    ['POST', '/api/v1/collections', (deep: string) => `{"name":"deep","vectors":${deep}}`],
  ])(
    'returns 400 MALFORMED_JSON with max for %s %s nested 2,000 and 10,000 deep',
    async (method, target, body) => {
      for (const levels of [2_000, 10_000]) {
        const res = await send(method, target, body(nested(levels)));
        expect(res.status).toBe(400);
        expect(res.body.error).toEqual(
          expect.objectContaining({ code: 'MALFORMED_JSON', max: 127 }),
        );
      }
    },
  );

  test('accepts nesting up to the limit (127 levels, the body counted) and refuses one more', async () => {
    // The body is level 1 and payload level 2: 125 more levels in `x` reach 127.
    const at = (levels: number) => `{"payload":{"x":${nested(levels)}},"points":[1]}`;
    expect((await send('POST', `${path('/points/payload')}?wait=true`, at(125))).status).toBe(200);
    const over = await send('POST', path('/points/payload'), at(126));
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('MALFORMED_JSON');
  });

  test('counts brackets inside strings as text, not nesting', async () => {
    const res = await send(
      'POST',
      `${path('/points/payload')}?wait=true`,
      JSON.stringify({ payload: { text: '['.repeat(5_000) }, points: [1] }),
    );
    expect(res.status).toBe(200);
  });
});

describe('numbers past the range of a float', () => {
  test.each([
    ['a vector component', path('/points'), 'PUT', '{"points":[{"id":7,"vector":[1e400,1,1,1]}]}'],
    ['a negative one', path('/points'), 'PUT', '{"points":[{"id":7,"vector":[1,-2E+999,1,1]}]}'],
    [
      'a 400-digit one',
      path('/points'),
      'PUT',
      `{"points":[{"id":7,"vector":[1,${'9'.repeat(400)},1,1]}]}`,
    ],
    [
      'an upserted payload value',
      path('/points'),
      'PUT',
      '{"points":[{"id":7,"vector":[1,1,1,1],"payload":{"n":1e400}}]}',
    ],
    [
      'a merged payload value',
      path('/points/payload'),
      'POST',
      '{"payload":{"n":1e400},"points":[1]}',
    ],
    ['a search vector', path('/points/search'), 'POST', '{"vector":[1e400,1,1,1],"limit":3}'],
    ['a query', path('/points/query'), 'POST', '{"query":[1,1,1,1e999]}'],
    [
      'a vector update',
      path('/points/vectors'),
      'PUT',
      '{"points":[{"id":1,"vector":[1,1,1,1e400]}]}',
    ],
  ])(
    'returns 400 VALIDATION_ERROR naming the field for %s',
    async (_what, target, method, body) => {
      const res = await send(method, `${target}?wait=true`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(
        expect.objectContaining({ code: 'VALIDATION_ERROR', field: expect.any(String) }),
      );
      expect(res.body.error.message).toMatch(/finite/);
    },
  );

  test('stores nothing from a refused upsert, and scores stay numbers', async () => {
    await send(
      'PUT',
      `${path('/points')}?wait=true`,
      '{"points":[{"id":8,"vector":[1e400,1,1,1]}]}',
    );
    const got = await vcall<{ result: unknown[] }>(server, 'POST', path('/points/retrieve'), {
      key: owner.key,
      body: { ids: [8] },
    });
    expect(got.body.result).toEqual([]);
    const hits = await vcall<{ result: { score: unknown }[] }>(
      server,
      'POST',
      path('/points/search'),
      {
        key: owner.key,
        body: { vector: [1, 1, 2, 3], limit: 10 },
      },
    );
    expect(hits.body.result.every((hit) => typeof hit.score === 'number')).toBe(true);
  });

  test('accepts large finite numbers, tiny exponents and number-like text', async () => {
    const res = await send(
      'PUT',
      `${path('/points')}?wait=true`,
      '{"points":[{"id":9,"vector":[3.4e38,1e-400,2E+2,1e-05],"payload":{"s":"1e400","n":1.7e308}}]}',
    );
    expect(res.status).toBe(200);
  });
});

describe('limit and offset', () => {
  test.each([
    ['search', { vector: [1, 1, 1, 1], limit: 1e12 }, 'limit', 10_000],
    ['search', { vector: [1, 1, 1, 1], limit: 3, offset: 1e12 }, 'offset', 100_000],
    ['query', { query: [1, 1, 1, 1], limit: 1e12 }, 'limit', 10_000],
    ['query', { query: [1, 1, 1, 1], offset: 1e12 }, 'offset', 100_000],
    ['query', { query: [1, 1, 1, 1], prefetch: [{ limit: 1e12 }] }, 'prefetch[0].limit', 10_000],
    ['scroll', { limit: 1e12 }, 'limit', 10_000],
    [
      'search/batch',
      { searches: [{ vector: [1, 1, 1, 1], limit: 1e12 }] },
      'searches[0].limit',
      10_000,
    ],
    [
      'query/batch',
      { searches: [{ query: [1, 1, 1, 1], offset: 1e12 }] },
      'searches[0].offset',
      100_000,
    ],
  ])('returns 400 VALIDATION_ERROR with the maximum on %s %j', async (route, body, field, max) => {
    const res = await vcall<ErrorBody>(server, 'POST', path(`/points/${route}`), {
      key: owner.key,
      body,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'VALIDATION_ERROR', field, max }),
    );
    expect(res.body.error.message).toContain(String(max));
  });

  test.each([
    ['search', '{"vector":[1,1,1,1],"limit":18446744073709551615}'],
    ['search', '{"vector":[1,1,1,1],"limit":3,"offset":18446744073709551615}'],
    ['query', '{"query":[1,1,1,1],"limit":18446744073709551615}'],
    ['scroll', '{"limit":18446744073709551615}'],
    ['search', '{"vector":[1,1,1,1],"l\\u0069mit":1000000000000}'],
    ['search', '{"vector":[1,1,1,1], "limit" :  10001}'],
  ])('returns 400 VALIDATION_ERROR for %s %s', async (route, text) => {
    const res = await send('POST', path(`/points/${route}`), text);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  test('answers the caps themselves, and a scroll offset is a point id, not a count', async () => {
    const search = await vcall<{ result: unknown[] }>(server, 'POST', path('/points/search'), {
      key: owner.key,
      body: { vector: [1, 1, 1, 1], limit: 10_000, offset: 100_000 },
    });
    expect(search.status).toBe(200);
    expect(search.body.result).toEqual([]);
    const scroll = await vcall(server, 'POST', path('/points/scroll'), {
      key: owner.key,
      body: { limit: 10_000, offset: 1e12 },
    });
    expect(scroll.status).toBe(200);
  });
});

describe('content type', () => {
  test.each([
    ['POST', path('/points/scroll'), '{"limit":1}'],
    ['POST', path('/points/search'), '{"vector":[1,1,1,1],"limit":1}'],
    ['PUT', path('/points'), '{"points":[{"id":1,"vector":[1,1,1,1]}]}'],
    ['POST', path('/points/payload'), '{"payload":{"a":1},"points":[1]}'],
    ['POST', '/api/v1/collections', '{"name":"plain","vectors":{"size":4,"distance":"Dot"}}'],
    ['PUT', '/api/v1/schema/docs', '{"schema":{},"enforcement_mode":"off"}'],
  ])(
    'returns 415 MALFORMED_JSON for text/plain on %s %s, and writes nothing',
    async (method, target, body) => {
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'text/plain;charset=UTF-8',
      ]) {
        const res = await send(method, target, body, type);
        expect(res.status).toBe(415);
        expect(res.body.error.code).toBe('MALFORMED_JSON');
        expect(res.body.error.message).toMatch(/application\/json/);
      }
    },
  );

  test.each([
    ['PUT', path('/points'), '{"points":[{"id":77,"vector":[1,1,1,1]}]}'],
    ['POST', path('/points/payload'), '{"payload":{"encoded":1},"points":[1]}'],
    ['POST', path('/points/search'), '{"vector":[1,1,1,1],"limit":1}'],
    ['POST', '/api/v1/collections', '{"name":"encoded","vectors":{"size":4,"distance":"Dot"}}'],
  ])(
    'returns 415 MALFORMED_JSON with Accept-Encoding: identity for a gzip or br body on %s %s',
    async (method, target, text) => {
      for (const [coding, raw] of [
        ['gzip', gzipSync(text)],
        ['br', Buffer.from(text)],
      ] as const) {
        const res = await vcall<ErrorBody>(server, method, target, {
          key: owner.key,
          rawBody: raw,
          headers: { 'content-type': 'application/json', 'content-encoding': coding },
        });
        expect(res.status).toBe(415);
        expect(res.headers.get('accept-encoding')).toBe('identity');
        expect(res.body.error).toMatchObject({
          code: 'MALFORMED_JSON',
          message: `The body is sent with Content-Encoding: ${coding}; send the JSON unencoded.`,
        });
      }
      // Nothing was written: no point 77, no payload key, no collection.
      const scroll = await send('POST', path('/points/scroll'), '{"limit":100}');
      const points = (scroll.body as unknown as { result: { points: object[] } }).result.points;
      expect(points.map((point) => JSON.stringify(point))).not.toContainEqual(
        expect.stringMatching(/"id":77|"encoded"/),
      );
      const list = await vcall(server, 'GET', '/api/v1/collections', { key: owner.key });
      expect(list.text).not.toContain('"encoded"');
    },
  );

  test('accepts application/json with parameters, a +json type, and a body with no Content-Type', async () => {
    const scroll = (type: string) => send('POST', path('/points/scroll'), '{"limit":1}', type);
    expect((await scroll('application/json; charset=utf-8')).status).toBe(200);
    expect((await scroll('application/vnd.api+json')).status).toBe(200);
    const untyped = await rawRequest(
      server.base,
      'POST',
      path('/points/scroll'),
      { authorization: `Bearer ${owner.key}` },
      (req) => req.end('{"limit":1}'),
    );
    expect(untyped.status).toBe(200);
  });
});

describe('member names spelled with escapes', () => {
  test.each([
    '{"query":[1,1,1,1],"lookup\\u005ffrom":{"collection":"../other"}}',
    '{"query":[1,1,1,1],"\\u006cookup_from":{"collection":"a/b"}}',
    '{"query":[1,1,1,1],"lookup_from":{"c\\u006fllection":"a/b"}}',
    '{"query":[1,1,1,1],"prefetch":[{"query":[1,1,1,1],"lookup_fro\\u006d":{"collection":"a b"}}]}',
  ])(
    'refuses a lookup_from that is not a bare collection name however spelled: %s',
    async (text) => {
      for (const route of ['/points/query', '/points/query/batch']) {
        const body = route.endsWith('batch') ? `{"searches":[${text}]}` : text;
        const res = await send('POST', path(route), body);
        expect(res.status).toBe(400);
        expect(res.body.error).toEqual(
          expect.objectContaining({ code: 'VALIDATION_ERROR', field: 'lookup_from.collection' }),
        );
      }
    },
  );

  test('strips with_vectors on search and limit on count however spelled', async () => {
    const search = await send(
      'POST',
      path('/points/search'),
      '{"vector":[1,1,1,1],"limit":1,"with_vector\\u0073":true}',
    );
    expect(search.status).toBe(200);
    expect(
      (search.body as unknown as { result: { vector: unknown }[] }).result[0]!.vector,
    ).toBeNull();
    const count = await send('POST', path('/points/count'), '{"exact":true,"l\\u0069mit":1}');
    expect(count.status).toBe(200);
    expect((count.body as unknown as { result: { count: number } }).result.count).toBeGreaterThan(
      1,
    );
  });

  test('refuses a reserved payload key spelled with escapes on a payload merge', async () => {
    const res = await send(
      'POST',
      path('/points/payload'),
      '{"payload":{"\\u005f_svc_x":1},"points":[1]}',
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('RESERVED_FIELD');
  });
});

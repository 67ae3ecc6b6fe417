/**
 * A seeded fuzz of every operation in the vector plane's own OpenAPI
 * document, through the real gateway and engine: hostile bodies (deep
 * nesting, numbers past a float, 2^64-1 limits, member names spelled with
 * escapes, values of every JSON type), content types that are not JSON, and
 * methods no route takes. Every answer must be the contract's: no 5xx, an
 * `{error:{code,message}}` envelope on every error, a status the document
 * lists for the operation, and `Allow` on a 405. `FUZZ_SEED` and
 * `FUZZ_CASES` (per operation) change the run; a failure prints the case.
 * (bench/fuzz-apis.ts runs schemathesis over both documents; this is the
 * hand-made probes' family, small enough for every test run.)
 */
import { request } from 'node:http';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import {
  createCollection,
  createVectorCaller,
  startVectorServer,
  vcall,
  type VectorCaller,
  type VectorServer,
} from './vector-server.js';

let server: VectorServer;
let caller: VectorCaller;

const SEED = Number(process.env.FUZZ_SEED ?? 17);
const CASES = Number(process.env.FUZZ_CASES ?? 12);

beforeAll(async () => {
  server = await startVectorServer();
  caller = await createVectorCaller(server);
  await createCollection(server, caller.key, 'docs');
  await vcall(server, 'PUT', '/api/v1/collections/docs/points?wait=true', {
    key: caller.key,
    body: { points: [{ id: 1, vector: [1, 2, 3, 4], payload: { owner: 'a' } }] },
  });
});
afterAll(async () => {
  await server?.close();
});

/** mulberry32: a small seeded generator, so a failing run can be repeated. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)]!;

/** Member names the gateway or the engine reads, some spelled with escapes. */
const NAMES = [
  'limit',
  'offset',
  'lookup_from',
  'collection',
  'with_vectors',
  'with_payload',
  'points',
  'payload',
  'vector',
  'query',
  'prefetch',
  'searches',
  'filter',
  'ids',
  'keys',
  'schema',
  'enforcement_mode',
  'name',
  'vectors',
  'size',
  '__svc_x',
  '__svc_agent_id',
];
const escaped = (name: string, random: Random) =>
  name.replace(/[a-z_]/, (c) =>
    random() < 0.5 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c,
  );
const NUMBERS = [
  '1e400',
  '-1e400',
  '18446744073709551615',
  '1e12',
  '0',
  '-1',
  '1.5',
  '1e-400',
  '9'.repeat(320),
  '3.4e39',
  '10001',
];

/** A JSON text of a random shape, `depth` levels at most. */
function value(random: Random, depth: number): string {
  const roll = random();
  if (depth <= 0 || roll < 0.3)
    return pick(random, [...NUMBERS, '"docs"', '"a/b"', 'null', 'true', '"\\u005f_svc_x"']);
  if (roll < 0.45)
    return `[${Array.from({ length: 1 + Math.floor(random() * 4) }, () => value(random, depth - 1)).join(',')}]`;
  const members = Array.from({ length: 1 + Math.floor(random() * 4) }, () => {
    const name = pick(random, NAMES);
    return `"${random() < 0.3 ? escaped(name, random) : name}":${value(random, depth - 1)}`;
  });
  return `{${members.join(',')}}`;
}

/** One hostile body. */
function body(random: Random): string {
  const roll = random();
  if (roll < 0.15) {
    const levels = pick(random, [126, 127, 128, 2_000, 10_000]);
    return `{"payload":${'['.repeat(levels)}${']'.repeat(levels)},"points":[1]}`;
  }
  if (roll < 0.25) return pick(random, ['', 'not json', '[]', 'null', '{"a":', '{}{}']);
  return value(random, 5);
}

interface Operation {
  method: string;
  path: string;
  statuses: Set<number>;
}

function operations(document: {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
}): Operation[] {
  const concrete = (path: string) =>
    path
      .replace('{name}', 'docs')
      .replace('{collection}', 'docs')
      .replace('{workspace}', 'team')
      .replace('{id}', '1')
      .replace('{field}', 'owner');
  return Object.entries(document.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path: concrete(path),
      statuses: new Set(Object.keys(op.responses).map(Number)),
    })),
  );
}

function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  text: string | undefined,
): Promise<{ status: number; allow: string | undefined; text: string }> {
  // Declared: node:http sends a DELETE or TRACE body with neither a length nor chunks otherwise.
  const sized =
    text === undefined
      ? headers
      : { ...headers, 'content-length': String(Buffer.byteLength(text)) };
  return new Promise((resolve, reject) => {
    const req = request(`${server.base}${path}`, { method, headers: sized }, (res) => {
      let answer = '';
      res.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode!, allow: res.headers.allow, text: answer }),
      );
    });
    req.on('error', reject);
    req.end(text);
  });
}

test('answers every operation of its document with the contract under hostile input', async () => {
  const document = (await vcall(server, 'GET', '/api/v1/openapi.json')).body as Parameters<
    typeof operations
  >[0];
  const random = generator(SEED);
  const failures: string[] = [];
  for (const op of operations(document)) {
    for (let k = 0; k < CASES; k++) {
      const text = op.method === 'GET' || op.method === 'DELETE' ? undefined : body(random);
      const roll = random();
      const type =
        roll < 0.15
          ? pick(random, [
              'text/plain',
              'application/x-www-form-urlencoded',
              'multipart/form-data',
              '',
            ])
          : 'application/json';
      const method =
        random() < 0.1 ? pick(random, ['TRACE', 'PATCH', 'PROPFIND', 'DELETE']) : op.method;
      const headers: Record<string, string> = { authorization: `Bearer ${caller.key}` };
      if (type) headers['content-type'] = type;
      const res = await send(method, op.path, headers, text);
      const problems: string[] = [];
      if (res.status >= 500) problems.push('a server error');
      if (res.status >= 400) {
        let code: unknown;
        try {
          code = (JSON.parse(res.text) as { error?: { code?: unknown } }).error?.code;
        } catch {
          code = undefined;
        }
        if (typeof code !== 'string') problems.push('no error envelope');
      }
      if (res.status === 405 && !res.allow) problems.push('405 without Allow');
      if (method === op.method && res.status !== 405 && !op.statuses.has(res.status)) {
        problems.push(`status ${res.status} not in the document`);
      }
      if (problems.length > 0) {
        failures.push(
          `${method} ${op.path} [${type}] ${text?.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 200)}: ${problems.join(', ')}`,
        );
      }
    }
  }
  expect(failures).toEqual([]);
}, 120_000);

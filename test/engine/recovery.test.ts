/**
 * Recovery of the engine process from what requests and disks can do to its write-ahead
 * log: the nastiest bodies the API accepts survive a SIGKILL and a restart intact, a body
 * it refuses never reaches the log, and a record that will not replay (written here by
 * hand, in the log's format) is set aside in the collection's quarantine, logged and
 * counted, while the engine starts and every other write replays.
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import { appendFileSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from '../../engine/src/persistence/crc32.js';
import { call, startEngine } from './support/engine-process.js';
import type { EngineProcess } from './support/engine-process.js';

const running: EngineProcess[] = [];
afterEach(async () => {
  for (const engine of running.splice(0)) await engine.dispose();
});

async function start(dataDir?: string) {
  const engine = await startEngine(dataDir ? { dataDir } : {});
  running.push(engine);
  return engine;
}

/** How deeply a JSON value nests objects and arrays (a scalar is 0). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    deepest = Math.max(deepest, d + 1);
    for (const inner of Object.values(v)) stack.push([inner, d + 1]);
  }
  return deepest;
}

/** `levels` objects, each the only value of the one before. */
function chain(levels: number, leaf: unknown = 'bottom'): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = { d: value };
  return value;
}

/** A filter that nests `levels` `must` clauses around `has_id`. */
function nestedFilter(levels: number, ids: number[]): unknown {
  let filter: unknown = { has_id: ids };
  for (let i = 0; i < levels; i++) filter = { must: [filter] };
  return filter;
}

interface Point {
  id: number;
  vector: number[];
  payload: Record<string, unknown>;
}

const vector = (id: number) => [1, id, -id, 0.5];

/** Every point of collection `d`, with payloads and vectors, in id order. */
async function everyPoint(url: string): Promise<Point[]> {
  const res = await call(url, 'POST', '/collections/d/points/scroll', {
    limit: 1000,
    with_payload: true,
    with_vector: true,
  });
  expect(res.status).toBe(200);
  return (res.body.result as { points: Point[] }).points;
}

describe('the nastiest bodies the API accepts', () => {
  test('are refused past 127 levels of nesting before the log, and survive a SIGKILL and a restart intact', async () => {
    const first = await start();
    const api = (method: string, path: string, body: unknown) =>
      call(first.url, method, path, body);
    expect(
      (await api('PUT', '/collections/d', { vectors: { size: 4, distance: 'Dot' } })).status,
    ).toBe(200);

    const unicodeKeys: Record<string, unknown> = {
      '': 'empty key',
      constructor: 'constructor',
      toString: 'toString',
      ключ: 1,
      键: 2,
      '🔑': 3,
      'a.b': 'dotted',
      '"quoted"': 'quoted',
      '\u0000nul': 'nul',
      '\ud800': 'lone surrogate',
      'e\u0301': 'combining',
      שלום: 'rtl',
    };
    // JSON.parse makes `__proto__` an own key; Qdrant stores it like any other.
    Object.defineProperty(unicodeKeys, '__proto__', {
      value: { polluted: true },
      enumerable: true,
      configurable: true,
      writable: true,
    });
    const manyKeys = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    const hugeString = `${'x'.repeat(4 * 1024 * 1024)}\ud800😀\u0000"\\`;
    const extremes = {
      max: Number.MAX_VALUE,
      min: Number.MIN_VALUE,
      safe: Number.MAX_SAFE_INTEGER,
      arrays: [[[[[]]]], [], [null, true, 'x']],
    };
    const points: Point[] = [
      { id: 1, vector: vector(1), payload: { deep: chain(123) } },
      { id: 2, vector: vector(2), payload: { huge: hugeString } },
      { id: 3, vector: vector(3), payload: unicodeKeys },
      { id: 4, vector: vector(4), payload: manyKeys },
      { id: 5, vector: vector(5), payload: extremes },
      { id: 6, vector: vector(6), payload: { base: 'merge into me' } },
      { id: 7, vector: vector(7), payload: { a: { b: [{ keep: 1 }] } } },
      { id: 8, vector: vector(8), payload: { overwritten: true } },
      { id: 9, vector: vector(9), payload: { deleted: 'by a deep filter' } },
    ];
    const upsert = { points };
    // The deepest body the engine (and serde_json) accepts: 127 levels.
    expect(depthOf(upsert)).toBe(127);
    expect((await api('PUT', '/collections/d/points?wait=true', upsert)).status).toBe(200);

    const merge = { payload: { merged: chain(125) }, points: [6] };
    expect(depthOf(merge)).toBe(127);
    expect((await api('POST', '/collections/d/points/payload?wait=true', merge)).status).toBe(200);
    const atKey = { payload: { set: 'at a key' }, key: 'a.b[0]', points: [7] };
    expect((await api('POST', '/collections/d/points/payload?wait=true', atKey)).status).toBe(200);
    const overwrite = { payload: unicodeKeys, points: [8] };
    expect((await api('PUT', '/collections/d/points/payload?wait=true', overwrite)).status).toBe(
      200,
    );
    const deleteKeys = { keys: ['ключ', '"🔑"'], points: [3] };
    expect(
      (await api('POST', '/collections/d/points/payload/delete?wait=true', deleteKeys)).status,
    ).toBe(200);
    const index = { field_name: '键', field_schema: 'integer' };
    expect((await api('PUT', '/collections/d/index?wait=true', index)).status).toBe(200);
    const deleteByFilter = { filter: nestedFilter(62, [9]) };
    expect(depthOf(deleteByFilter)).toBe(127);
    expect(
      (await api('POST', '/collections/d/points/delete?wait=true', deleteByFilter)).status,
    ).toBe(200);

    // One level more, and the bodies that bricked the engine: refused, never logged.
    const refused: [string, string, unknown][] = [
      [
        'POST',
        '/collections/d/points/payload?wait=true',
        { payload: { m: chain(126) }, points: [6] },
      ],
      [
        'POST',
        '/collections/d/points/payload?wait=true',
        { payload: { m: chain(2000) }, points: [6] },
      ],
      ['PUT', '/collections/d/points/payload?wait=true', { payload: chain(2000), points: [8] }],
      [
        'PUT',
        '/collections/d/points?wait=true',
        { points: [{ id: 10, vector: vector(10), payload: { deep: chain(2000) } }] },
      ],
      ['POST', '/collections/d/points/delete?wait=true', { filter: nestedFilter(2000, [1]) }],
    ];
    for (const [method, path, body] of refused) {
      const res = await api(method, path, body);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body.status).toEqual({
        error: expect.stringMatching(
          /^Format error in JSON body: recursion limit exceeded at byte \d+: objects and arrays may nest at most 127 levels deep$/,
        ),
      });
    }

    const expected: Point[] = [
      points[0]!,
      points[1]!,
      { ...points[2]!, payload: withoutKeys(unicodeKeys, ['ключ', '🔑']) },
      points[3]!,
      points[4]!,
      { ...points[5]!, payload: { base: 'merge into me', merged: chain(125) } },
      { ...points[6]!, payload: { a: { b: [{ keep: 1, set: 'at a key' }] } } },
      { ...points[7]!, payload: unicodeKeys },
    ];
    const before = await everyPoint(first.url);
    expect(before).toEqual(expected);
    expect(Object.keys(before[2]!.payload)).toContain('__proto__');

    await first.kill();
    const second = await start(first.dataDir);
    expect(await everyPoint(second.url)).toEqual(expected);
    const info = await call(second.url, 'GET', '/collections/d');
    expect((info.body.result as { payload_schema: unknown }).payload_schema).toEqual({
      键: { data_type: 'integer', points: 2 },
    });
    const telemetry = await call(second.url, 'GET', '/telemetry');
    expect((telemetry.body.result as { recovery: unknown }).recovery).toEqual({
      quarantined_records: 0,
      quarantined_at_startup: 0,
      quarantined_by_collection: {},
    });

    // And from a snapshot: a clean stop folds the log into one.
    await second.stop();
    const third = await start(first.dataDir);
    expect(await everyPoint(third.url)).toEqual(expected);
  });
});

function withoutKeys(payload: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (!keys.includes(key)) Object.defineProperty(copy, key, { value, enumerable: true });
  }
  return copy;
}

/**
 * A log record framed as the engine's write-ahead log frames it (persistence/wal.ts): the
 * length and CRC-32 of the body, then the body: the length of its JSON header, the header
 * (given as a value or as text) and the vectors as float32.
 */
function framed(header: unknown, vectors: number[][] = []): Buffer {
  const json = Buffer.from(typeof header === 'string' ? header : JSON.stringify(header));
  const floats = Buffer.from(new Float32Array(vectors.flat()).buffer);
  const body = Buffer.concat([Buffer.alloc(4), json, floats]);
  body.writeUInt32LE(json.length, 0);
  const frame = Buffer.alloc(8);
  frame.writeUInt32LE(body.length, 0);
  frame.writeUInt32LE(crc32(body), 4);
  return Buffer.concat([frame, body]);
}

describe('a record that will not replay', () => {
  test('is set aside in the quarantine, logged and counted, and the engine starts with every other write', async () => {
    const first = await start();
    await call(first.url, 'PUT', '/collections/d', { vectors: { size: 4, distance: 'Dot' } });
    const points = [1, 2, 3].map((id) => ({ id, vector: vector(id), payload: { id } }));
    const ack = await call(first.url, 'PUT', '/collections/d/points?wait=true', { points });
    expect(ack.status).toBe(200);
    const lastSeq = (ack.body.result as { operation_id: number }).operation_id;
    await first.kill();

    // What an older engine logged before applying: a merge nested 100,000 levels deep (its
    // replay overflowed the stack in structuredClone), a header that is not JSON under a
    // good checksum, and after them a write that must still replay.
    const collectionDir = join(first.dataDir, 'collections', 'd');
    const walDir = join(collectionDir, 'wal');
    const [segment] = readdirSync(walDir);
    const levels = 100_000;
    const deepMerge =
      `{"seq":${lastSeq + 1},"op":{"type":"set_payload","selector":{"ids":[1]},"payload":` +
      `${'{"d":'.repeat(levels)}"bottom"${'}'.repeat(levels)}}}`;
    const notJson = Buffer.concat([Buffer.alloc(4), Buffer.from('{"seq": oops')]);
    notJson.writeUInt32LE(notJson.length - 4, 0);
    const notJsonFrame = Buffer.alloc(8);
    notJsonFrame.writeUInt32LE(notJson.length, 0);
    notJsonFrame.writeUInt32LE(crc32(notJson), 4);
    const after = {
      seq: lastSeq + 3,
      op: { type: 'upsert', points: [[4, { after: 'the poisoned ones' }]] },
    };
    const offsetOfDeep = readFileSync(join(walDir, segment!)).length;
    const deepFrame = framed(deepMerge);
    appendFileSync(join(walDir, segment!), deepFrame);
    appendFileSync(join(walDir, segment!), Buffer.concat([notJsonFrame, notJson]));
    appendFileSync(join(walDir, segment!), framed(after, [vector(4)]));

    const second = await start(first.dataDir);
    const all = await everyPoint(second.url);
    expect(all.map((p) => [p.id, p.payload])).toEqual([
      [1, { id: 1 }],
      [2, { id: 2 }],
      [3, { id: 3 }],
      [4, { after: 'the poisoned ones' }],
    ]);
    const telemetry = await call(second.url, 'GET', '/telemetry');
    expect((telemetry.body.result as { recovery: unknown }).recovery).toEqual({
      quarantined_records: 2,
      quarantined_at_startup: 2,
      quarantined_by_collection: { d: 2 },
    });
    const quarantineDir = join(collectionDir, 'wal-quarantine');
    const files = readdirSync(quarantineDir).sort();
    const base = segment!.replace(/\.log$/, '');
    expect(files).toEqual([
      `${base}-${offsetOfDeep}.json`,
      `${base}-${offsetOfDeep + deepFrame.length}.json`,
    ]);
    const quarantined = JSON.parse(readFileSync(join(quarantineDir, files[0]!), 'utf8')) as {
      segment: string;
      offset: number;
      seq: number | null;
      reason: string;
      bytes_base64: string;
    };
    expect(quarantined).toMatchObject({ segment, offset: offsetOfDeep, seq: null });
    expect(quarantined.reason).toMatch(/nests deeper than/);
    expect(Buffer.from(quarantined.bytes_base64, 'base64')).toEqual(deepFrame.subarray(8));

    // The log no longer holds them: the next start sets nothing aside, and writes go on.
    const more = await call(second.url, 'PUT', '/collections/d/points?wait=true', {
      points: [{ id: 5, vector: vector(5), payload: { id: 5 } }],
    });
    expect(more.status).toBe(200);
    await second.kill();
    const third = await start(first.dataDir);
    expect((await everyPoint(third.url)).map((p) => p.id)).toEqual([1, 2, 3, 4, 5]);
    const again = await call(third.url, 'GET', '/telemetry');
    expect((again.body.result as { recovery: unknown }).recovery).toEqual({
      quarantined_records: 2,
      quarantined_at_startup: 0,
      quarantined_by_collection: { d: 2 },
    });
  });

  test('that decodes but fails to apply is quarantined with its sequence number', async () => {
    const first = await start();
    await call(first.url, 'PUT', '/collections/d', { vectors: { size: 4, distance: 'Dot' } });
    const ack = await call(first.url, 'PUT', '/collections/d/points?wait=true', {
      points: [{ id: 1, vector: vector(1), payload: { id: 1 } }],
    });
    const lastSeq = (ack.body.result as { operation_id: number }).operation_id;
    await first.kill();
    const walDir = join(first.dataDir, 'collections', 'd', 'wal');
    const [segment] = readdirSync(walDir);
    // A filter that is not one: validated when a request brings it, so only a log can.
    const badFilter = {
      seq: lastSeq + 1,
      op: { type: 'clear_payload', selector: { filter: { must: 'not a list of conditions' } } },
    };
    appendFileSync(join(walDir, segment!), framed(badFilter));

    const second = await start(first.dataDir);
    expect((await everyPoint(second.url)).map((p) => [p.id, p.payload])).toEqual([[1, { id: 1 }]]);
    const quarantineDir = join(first.dataDir, 'collections', 'd', 'wal-quarantine');
    const [file] = readdirSync(quarantineDir);
    const quarantined = JSON.parse(readFileSync(join(quarantineDir, file!), 'utf8')) as {
      seq: number;
      reason: string;
    };
    expect(quarantined.seq).toBe(lastSeq + 1);
    expect(quarantined.reason).toMatch(/^Format error in JSON body: filter\.must\[0\]/);
  });
});

/**
 * Payload schema routes through the real gateway, FerretDB and engine: the
 * stored record and its ETag compare-and-set, tenancy, analyze, conformance
 * with its time budget, and enforcement on upsert and payload writes.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  createAgentKey,
  createCollection,
  createVectorCaller,
  startVectorServer,
  vcall,
  type ErrorBody,
  type VectorCaller,
  type VectorServer,
} from './vector-server.js';
import { BodyReads } from './streamed-body.js';

let server: VectorServer;
/** What the planes started here report of the upsert bodies they read. */
const reads = new BodyReads();
let owner: VectorCaller;
let other: VectorCaller;

type Result<T = Record<string, unknown>> = { result: T; status: string };
type SchemaRecord = {
  collection: string;
  schema: Record<string, unknown>;
  enforcement_mode: string;
  description: string | null;
  version: number;
  etag: string;
};
type Violation = { point_id?: number; field: string; message: string };
type Refusal = ErrorBody & {
  error: {
    details: { violations: Violation[]; points_violating: number; points_written: number };
  };
};

const PRODUCT = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    price: { type: 'number', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['title'],
};

const vec = (i: number) => [1, i % 7, (i * 3) % 5, 0.5];

beforeAll(async () => {
  server = await startVectorServer({ upsert: { onBodyRead: reads.onBodyRead } });
  [owner, other] = await Promise.all([createVectorCaller(server), createVectorCaller(server)]);
});
afterAll(async () => {
  await server?.close();
});

const schemaPath = (collection: string, rest = '') => `/api/v1/schema/${collection}${rest}`;

function putSchema(
  key: string,
  collection: string,
  body: unknown,
  ifMatch?: string,
  on: Pick<VectorServer, 'base'> = server,
) {
  return vcall<ErrorBody & Result<SchemaRecord>>(on, 'PUT', schemaPath(collection), {
    key,
    body,
    headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
  });
}

function upsert(
  key: string,
  collection: string,
  points: unknown[],
  on: Pick<VectorServer, 'base'> = server,
) {
  return vcall<Refusal & Result & { warnings?: Violation[] }>(
    on,
    'PUT',
    `/api/v1/collections/${collection}/points?wait=true`,
    { key, body: { points } },
  );
}

/**
 * Sends an upsert body in pieces, each once the gateway has read the ones before (or answered),
 * to a plane started with `reads.onBodyRead`.
 */
function streamedUpsert(
  on: Pick<VectorServer, 'base'>,
  key: string,
  collection: string,
  pieces: string[],
): Promise<{ status: number; body: Refusal }> {
  return reads.send<Refusal>(on.base, key, collection, pieces);
}

function getSchema(key: string, collection: string) {
  return vcall<ErrorBody & Result<SchemaRecord>>(server, 'GET', schemaPath(collection), { key });
}

/** The `schema_version` of the single-collection read. */
async function schemaVersionOf(key: string, collection: string) {
  const res = await vcall<{ schema_version: unknown }>(
    server,
    'GET',
    `/api/v1/collections/${collection}`,
    { key },
  );
  return res.body.schema_version;
}

async function payloadsOf(key: string, collection: string, ids: number[]) {
  const res = await vcall<Result<{ id: number; payload: Record<string, unknown> }[]>>(
    server,
    'POST',
    `/api/v1/collections/${collection}/points/retrieve`,
    { key, body: { ids } },
  );
  return new Map(res.body.result.map((p) => [p.id, p.payload]));
}

async function countOf(key: string, collection: string, on: Pick<VectorServer, 'base'> = server) {
  const res = await vcall<Result<{ count: number }>>(
    on,
    'POST',
    `/api/v1/collections/${collection}/points/count`,
    { key, body: { exact: true } },
  );
  return res.body.result.count;
}

describe('PUT, GET and DELETE /schema/{collection}', () => {
  beforeAll(async () => {
    await createCollection(server, owner.key, 'catalog');
  });

  test('returns 401 MISSING_API_KEY without a key', async () => {
    const res = await vcall<ErrorBody>(server, 'GET', schemaPath('catalog'));
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('MISSING_API_KEY');
  });

  test('returns 400 VALIDATION_ERROR for a schema that is not an object or not a usable JSON Schema', async () => {
    for (const schema of [
      'object',
      { type: 'objekt' },
      { type: 'object', requird: ['title'] },
      { properties: { a: { $ref: 'https://example.com/remote.json' } } },
      { properties: { a: { type: 'string', pattern: '^(a+)+$' } } },
    ]) {
      const res = await putSchema(owner.key, 'catalog', { schema, enforcement_mode: 'strict' });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(
        expect.objectContaining({ code: 'VALIDATION_ERROR', field: expect.any(String) }),
      );
    }
    const extra = await putSchema(owner.key, 'catalog', {
      schema: PRODUCT,
      enforcement_mode: 'off',
      version: 3,
    });
    expect(extra.body.error).toEqual(
      expect.objectContaining({ code: 'VALIDATION_ERROR', field: 'version' }),
    );
  });

  test('returns 400 MALFORMED_JSON for a body that is not JSON on every route that reads one', async () => {
    for (const [method, rest] of [
      ['PUT', ''],
      ['POST', '/analyze'],
      ['POST', '/conformance'],
    ]) {
      const res = await vcall<ErrorBody>(server, method!, schemaPath('catalog', rest), {
        key: owner.key,
        rawBody: '{"schema":',
        headers: { 'content-type': 'application/json' },
      });
      expect([res.status, res.body.error.code]).toEqual([400, 'MALFORMED_JSON']);
    }
  });

  test('returns 400 INVALID_ENFORCEMENT_MODE for a mode other than off, warn or strict', async () => {
    for (const mode of ['block', undefined]) {
      const res = await putSchema(owner.key, 'catalog', {
        schema: PRODUCT,
        enforcement_mode: mode,
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(
        expect.objectContaining({ code: 'INVALID_ENFORCEMENT_MODE', field: 'enforcement_mode' }),
      );
    }
  });

  test("returns 403 COLLECTION_OWNERSHIP_MISMATCH for another account's engine name", async () => {
    const foreign = `t_live_${owner.accountId.replaceAll('-', '')}_catalog`;
    const res = await vcall<ErrorBody>(server, 'GET', schemaPath(foreign), { key: other.key });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('COLLECTION_OWNERSHIP_MISMATCH');
  });

  test('returns 404 COLLECTION_NOT_FOUND for a collection the account does not have', async () => {
    for (const [method, rest, body] of [
      ['GET', '', undefined],
      ['PUT', '', { schema: PRODUCT, enforcement_mode: 'off' }],
      ['DELETE', '', undefined],
      ['POST', '/analyze', {}],
      ['POST', '/conformance', {}],
    ] as const) {
      const res = await vcall<ErrorBody>(server, method, schemaPath('nowhere', rest), {
        key: owner.key,
        body,
      });
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual(
        expect.objectContaining({ code: 'COLLECTION_NOT_FOUND', collection_name: 'nowhere' }),
      );
    }
  });

  test('returns 404 SCHEMA_NOT_DEFINED on GET and DELETE before a schema is stored', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await vcall<ErrorBody>(server, method, schemaPath('catalog'), { key: owner.key });
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual(
        expect.objectContaining({ code: 'SCHEMA_NOT_DEFINED', collection_name: 'catalog' }),
      );
    }
    expect(await schemaVersionOf(owner.key, 'catalog')).toBeNull();
  });

  test('stores a schema, returns it with its ETag, and the collection read carries its version', async () => {
    // $-prefixed keys and dotted property names: stored as text, which FerretDB can hold.
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      ...PRODUCT,
      properties: { ...PRODUCT.properties, 'dims.cm': { $ref: '#/$defs/size' } },
      $defs: { size: { type: 'number' } },
    };
    const put = await putSchema(owner.key, 'catalog', {
      schema,
      enforcement_mode: 'warn',
      description: 'Products',
    });
    expect(put.status).toBe(200);
    const etag = put.headers.get('etag');
    expect(etag).toMatch(/^"\d+-[0-9a-z]+"$/);
    expect(put.body.result).toEqual(
      expect.objectContaining({
        collection: 'catalog',
        schema,
        enforcement_mode: 'warn',
        description: 'Products',
        etag,
      }),
    );

    const got = await getSchema(owner.key, 'catalog');
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe(etag);
    expect(got.body.result).toEqual(put.body.result);

    expect(await schemaVersionOf(owner.key, 'catalog')).toBe(put.body.result.version);
  });

  test('returns 412 SCHEMA_VERSION_MISMATCH with current_etag for a stale If-Match, and writes with the current one', async () => {
    const first = await putSchema(owner.key, 'catalog', {
      schema: PRODUCT,
      enforcement_mode: 'off',
    });
    const stale = first.headers.get('etag')!;
    const second = await putSchema(
      owner.key,
      'catalog',
      { schema: PRODUCT, enforcement_mode: 'warn' },
      stale,
    );
    expect(second.status).toBe(200);
    const current = second.headers.get('etag')!;
    expect(current).not.toBe(stale);
    expect(second.body.result.version).toBe(first.body.result.version + 1);

    const conflict = await putSchema(
      owner.key,
      'catalog',
      { schema: {}, enforcement_mode: 'off' },
      stale,
    );
    expect(conflict.status).toBe(412);
    expect(conflict.body.error).toEqual(
      expect.objectContaining({ code: 'SCHEMA_VERSION_MISMATCH', current_etag: current }),
    );
    const unchanged = await getSchema(owner.key, 'catalog');
    expect(unchanged.body.result.enforcement_mode).toBe('warn');
  });

  test('lets exactly one of two concurrent PUTs with the same If-Match win', async () => {
    for (let round = 0; round < 5; round++) {
      const base = await getSchema(owner.key, 'catalog');
      const etag = base.headers.get('etag')!;
      const [a, b] = await Promise.all(
        (['warn', 'strict'] as const).map((mode) =>
          putSchema(owner.key, 'catalog', { schema: PRODUCT, enforcement_mode: mode }, etag),
        ),
      );
      expect([a!.status, b!.status].sort()).toEqual([200, 412]);
      const winner = a!.status === 200 ? a! : b!;
      const loser = a!.status === 200 ? b! : a!;
      expect(loser.body.error.current_etag).toBe(winner.headers.get('etag'));
      const now = await getSchema(owner.key, 'catalog');
      expect(now.body.result.enforcement_mode).toBe(winner.body.result.enforcement_mode);
      expect(now.body.result.version).toBe(base.body.result.version + 1);
    }
  });

  test('deletes the schema (honouring If-Match); an ETag from before never matches again', async () => {
    const before = await getSchema(owner.key, 'catalog');
    const etag = before.headers.get('etag')!;
    const refused = await vcall<ErrorBody>(server, 'DELETE', schemaPath('catalog'), {
      key: owner.key,
      headers: { 'if-match': '"1-zzz"' },
    });
    expect(refused.status).toBe(412);
    const deleted = await vcall(server, 'DELETE', schemaPath('catalog'), {
      key: owner.key,
      headers: { 'if-match': etag },
    });
    expect(deleted.status).toBe(200);
    const gone = await getSchema(owner.key, 'catalog');
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('SCHEMA_NOT_DEFINED');
    expect(await schemaVersionOf(owner.key, 'catalog')).toBeNull();

    const afterDelete = await putSchema(
      owner.key,
      'catalog',
      { schema: PRODUCT, enforcement_mode: 'off' },
      etag,
    );
    expect(afterDelete.status).toBe(412);
    expect(afterDelete.body.error.current_etag).toBeNull();
    const fresh = await putSchema(owner.key, 'catalog', {
      schema: PRODUCT,
      enforcement_mode: 'off',
    });
    expect(fresh.status).toBe(200);
    expect(fresh.body.result.version).toBeGreaterThan(before.body.result.version);
  });

  test('deleting the collection deletes its schema', async () => {
    await createCollection(server, owner.key, 'ephemeral');
    expect(
      (await putSchema(owner.key, 'ephemeral', { schema: PRODUCT, enforcement_mode: 'strict' }))
        .status,
    ).toBe(200);
    expect(
      (await vcall(server, 'DELETE', '/api/v1/collections/ephemeral', { key: owner.key })).status,
    ).toBe(200);
    await createCollection(server, owner.key, 'ephemeral');
    const res = await getSchema(owner.key, 'ephemeral');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('SCHEMA_NOT_DEFINED');
    // Nor is the old strict schema enforced on the new collection.
    expect(
      (await upsert(owner.key, 'ephemeral', [{ id: 1, vector: vec(1), payload: {} }])).status,
    ).toBe(200);
  });
});

describe('tenancy', () => {
  beforeAll(async () => {
    await createCollection(server, owner.key, 'shared-name');
    await createCollection(server, other.key, 'shared-name');
    const put = await putSchema(owner.key, 'shared-name', {
      schema: PRODUCT,
      enforcement_mode: 'strict',
    });
    expect(put.status).toBe(200);
  });

  test("never shows another account's schema for a collection of the same name", async () => {
    const res = await getSchema(other.key, 'shared-name');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('SCHEMA_NOT_DEFINED');
    const conformance = await vcall<ErrorBody>(
      server,
      'POST',
      schemaPath('shared-name', '/conformance'),
      {
        key: other.key,
        body: {},
      },
    );
    expect(conformance.body.error.code).toBe('SCHEMA_NOT_DEFINED');
  });

  test("does not enforce one account's schema on another's writes", async () => {
    const res = await upsert(other.key, 'shared-name', [
      { id: 1, vector: vec(1), payload: { price: 'free' } },
    ]);
    expect(res.status).toBe(200);
  });

  test("changing or deleting one's own schema leaves the other account's untouched", async () => {
    const mine = await putSchema(other.key, 'shared-name', {
      schema: { type: 'object' },
      enforcement_mode: 'off',
    });
    expect(mine.status).toBe(200);
    expect(
      (await vcall(server, 'DELETE', schemaPath('shared-name'), { key: other.key })).status,
    ).toBe(200);
    const owners = await getSchema(owner.key, 'shared-name');
    expect(owners.status).toBe(200);
    expect(owners.body.result.enforcement_mode).toBe('strict');
    expect(owners.body.result.schema).toEqual(PRODUCT);
  });
});

describe('enforcement on upsert', () => {
  test('strict refuses a violating upsert with SCHEMA_VALIDATION_FAILED naming points and fields, writing nothing of it', async () => {
    await createCollection(server, owner.key, 'strict-up');
    await putSchema(owner.key, 'strict-up', { schema: PRODUCT, enforcement_mode: 'strict' });
    const res = await upsert(owner.key, 'strict-up', [
      { id: 1, vector: vec(1), payload: { title: 'ok' } },
      { id: 2, vector: vec(2), payload: { title: 'bad', price: -1 } },
      { id: 3, vector: vec(3), payload: { price: 1 } },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('SCHEMA_VALIDATION_FAILED');
    expect(res.body.error.details.violations).toEqual([
      expect.objectContaining({ point_id: 2, field: 'price' }),
      expect.objectContaining({ point_id: 3, field: 'title' }),
    ]);
    expect(res.body.error.details.points_written).toBe(0);
    expect(await countOf(owner.key, 'strict-up')).toBe(0);
  });

  test('strict accepts conforming points, and the attested keys are not subject to the schema', async () => {
    await createCollection(server, owner.key, 'closed');
    await putSchema(owner.key, 'closed', {
      schema: { ...PRODUCT, additionalProperties: false },
      enforcement_mode: 'strict',
    });
    const agent = await createAgentKey(server, owner);
    const byAgent = await upsert(agent.key, 'closed', [
      { id: 1, vector: vec(1), payload: { title: 'a' } },
    ]);
    expect(byAgent.status).toBe(200);
    const byUser = await upsert(owner.key, 'closed', [
      {
        id: 2,
        vector: vec(2),
        payload: { title: 'b', __svc_agent_id: 'x', __svc_deployment_id: 'y' },
      },
    ]);
    expect(byUser.status).toBe(200);
    expect(byUser.headers.get('x-schema-warnings')).toBeNull();
    expect((await payloadsOf(owner.key, 'closed', [1])).get(1)).toEqual({
      title: 'a',
      __svc_agent_id: agent.agentId,
      __svc_deployment_id: agent.deploymentId,
    });
  });

  test('warn accepts a violating upsert and reports it in X-Schema-Warnings and warnings', async () => {
    await createCollection(server, owner.key, 'warned');
    await putSchema(owner.key, 'warned', { schema: PRODUCT, enforcement_mode: 'warn' });
    const res = await upsert(owner.key, 'warned', [
      { id: 1, vector: vec(1), payload: { title: 'ok' } },
      { id: 2, vector: vec(2), payload: { title: 'x', tags: ['a', 7] } },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.headers.get('x-schema-warnings')).toBe('1');
    expect(res.body.warnings).toEqual([
      { point_id: 2, field: 'tags[1]', message: 'tags[1] must be string' },
    ]);
    expect(await countOf(owner.key, 'warned')).toBe(2);

    const clean = await upsert(owner.key, 'warned', [
      { id: 3, vector: vec(3), payload: { title: 'y' } },
    ]);
    expect(clean.headers.get('x-schema-warnings')).toBe('0');
    expect(clean.body.warnings).toBeUndefined();
  });

  test('off checks nothing', async () => {
    await createCollection(server, owner.key, 'unchecked');
    await putSchema(owner.key, 'unchecked', { schema: PRODUCT, enforcement_mode: 'off' });
    const res = await upsert(owner.key, 'unchecked', [
      { id: 1, vector: vec(1), payload: { price: 'x' } },
    ]);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-schema-warnings')).toBeNull();
  });
});

describe('enforcement on payload set and overwrite', () => {
  beforeAll(async () => {
    await createCollection(server, owner.key, 'payloads');
    await upsert(owner.key, 'payloads', [
      { id: 1, vector: vec(1), payload: { title: 'one', group: 'a' } },
      { id: 2, vector: vec(2), payload: { title: 'two', group: 'a' } },
      { id: 3, vector: vec(3), payload: { title: 'three', group: 'b' } },
    ]);
    await putSchema(owner.key, 'payloads', { schema: PRODUCT, enforcement_mode: 'strict' });
  });

  const write = (method: string, body: unknown) =>
    vcall<Refusal & Result & { warnings?: Violation[] }>(
      server,
      method,
      '/api/v1/collections/payloads/points/payload?wait=true',
      { key: owner.key, body },
    );

  test('strict refuses a merge that leaves a point breaking the schema, and changes nothing', async () => {
    const res = await write('POST', { payload: { price: 'cheap' }, points: [1, 2] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('SCHEMA_VALIDATION_FAILED');
    expect(res.body.error.details.violations.map((v) => [v.point_id, v.field])).toEqual([
      [1, 'price'],
      [2, 'price'],
    ]);
    expect((await payloadsOf(owner.key, 'payloads', [1])).get(1)).not.toHaveProperty('price');
  });

  test('strict checks the merged payload, not only the keys sent', async () => {
    const removesRequired = await write('POST', { payload: { title: null }, points: [3] });
    expect(removesRequired.status).toBe(400);
    expect(removesRequired.body.error.details.violations[0]).toEqual(
      expect.objectContaining({ point_id: 3, field: 'title' }),
    );
    const fine = await write('POST', { payload: { price: 3 }, points: [3] });
    expect(fine.status).toBe(200);
    expect((await payloadsOf(owner.key, 'payloads', [3])).get(3)).toEqual(
      expect.objectContaining({ title: 'three', price: 3 }),
    );
  });

  test('strict checks every point a merge by filter selects', async () => {
    const res = await write('POST', {
      payload: { tags: [1] },
      filter: { must: [{ key: 'group', match: { value: 'a' } }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.violations.map((v) => v.point_id).sort()).toEqual([1, 2]);
  });

  test('strict refuses an overwrite that breaks the schema and accepts one that conforms', async () => {
    const bad = await write('PUT', { payload: { price: 1 }, points: [2] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.violations[0]!.field).toBe('title');
    expect((await payloadsOf(owner.key, 'payloads', [2])).get(2)).toEqual(
      expect.objectContaining({ title: 'two' }),
    );
    const good = await write('PUT', { payload: { title: 'deux' }, points: [2] });
    expect(good.status).toBe(200);
  });

  test('warn accepts a violating payload set and overwrite with warnings', async () => {
    const current = await getSchema(owner.key, 'payloads');
    await putSchema(
      owner.key,
      'payloads',
      { schema: PRODUCT, enforcement_mode: 'warn' },
      current.headers.get('etag')!,
    );
    const merged = await write('POST', { payload: { price: -5 }, points: [1] });
    expect(merged.status).toBe(200);
    expect(merged.headers.get('x-schema-warnings')).toBe('1');
    expect(merged.body.warnings).toEqual([
      expect.objectContaining({ point_id: 1, field: 'price' }),
    ]);
    const overwritten = await write('PUT', { payload: { note: 'no title' }, points: [1] });
    expect(overwritten.status).toBe(200);
    expect(overwritten.body.warnings).toEqual([expect.objectContaining({ field: 'title' })]);
    expect((await payloadsOf(owner.key, 'payloads', [1])).get(1)).toEqual(
      expect.objectContaining({ note: 'no title' }),
    );
  });
});

describe('POST /schema/{collection}/analyze', () => {
  beforeAll(async () => {
    await createCollection(server, owner.key, 'observed');
    const agent = await createAgentKey(server, owner);
    await upsert(
      agent.key,
      'observed',
      Array.from({ length: 120 }, (_, i) => ({
        id: i,
        vector: vec(i),
        payload:
          i % 2 === 0
            ? { title: `t${i}`, price: i }
            : { title: `t${i}`, price: i + 0.5, tags: ['x'] },
      })),
    );
  });

  test('returns 400 INVALID_SAMPLE_SIZE outside 100..10000', async () => {
    for (const size of [99, 10_001, 'many']) {
      const res = await vcall<ErrorBody>(server, 'POST', schemaPath('observed', '/analyze'), {
        key: owner.key,
        body: { sample_size: size },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(
        expect.objectContaining({ code: 'INVALID_SAMPLE_SIZE', max: 10_000 }),
      );
    }
  });

  test('infers a schema from stored points, without the attested keys, that can be stored as is', async () => {
    const res = await vcall<
      Result<{ schema: Record<string, unknown>; fields: unknown[]; scan: Record<string, unknown> }>
    >(server, 'POST', schemaPath('observed', '/analyze'), {
      key: owner.key,
      body: { sample_size: 100 },
    });
    expect(res.status).toBe(200);
    const { schema, scan } = res.body.result;
    expect(schema).toEqual(
      expect.objectContaining({
        type: 'object',
        properties: {
          title: { type: 'string' },
          price: { type: 'number' },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['title', 'price'],
      }),
    );
    expect(scan).toEqual(
      expect.objectContaining({
        exact: false,
        stopped_because: 'sample_size',
        points_scanned: 100,
      }),
    );
    const stored = await putSchema(owner.key, 'observed', { schema, enforcement_mode: 'strict' });
    expect(stored.status).toBe(200);
  });
});

describe('POST /schema/{collection}/conformance', () => {
  beforeAll(async () => {
    await createCollection(server, owner.key, 'audited');
    // Written before the schema exists: enforcement applies to new writes only.
    await upsert(
      owner.key,
      'audited',
      Array.from({ length: 150 }, (_, i) => ({
        id: i,
        vector: vec(i),
        payload:
          i % 10 === 0
            ? { price: i }
            : i % 25 === 1
              ? { title: 't', tags: [i] }
              : { title: `t${i}` },
      })),
    );
  });

  test('returns 404 SCHEMA_NOT_DEFINED for a collection without a schema', async () => {
    const res = await vcall<ErrorBody>(server, 'POST', schemaPath('audited', '/conformance'), {
      key: owner.key,
      body: {},
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('SCHEMA_NOT_DEFINED');
  });

  test('returns 400 INVALID_SCAN_MODE, INVALID_SAMPLE_SIZE and INVALID_MAX_EXAMPLES', async () => {
    await putSchema(owner.key, 'audited', { schema: PRODUCT, enforcement_mode: 'strict' });
    for (const [body, code] of [
      [{ mode: 'quick' }, 'INVALID_SCAN_MODE'],
      [{ sample_size: 50 }, 'INVALID_SAMPLE_SIZE'],
      [{ max_examples: 101 }, 'INVALID_MAX_EXAMPLES'],
      [{ max_examples: -1 }, 'INVALID_MAX_EXAMPLES'],
    ] as const) {
      const res = await vcall<ErrorBody>(server, 'POST', schemaPath('audited', '/conformance'), {
        key: owner.key,
        body,
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(code);
    }
  });

  type Report = {
    schema_version: number;
    mode: string;
    scan: { exact: boolean; stopped_because: string; points_scanned: number };
    points_conforming: number;
    points_violating: number;
    fields: { field: string; points: number }[];
    offending_point_ids: number[];
  };

  test('reports a full scan: conforming count, responsible fields and capped offending ids, writing nothing', async () => {
    const res = await vcall<Result<Report>>(server, 'POST', schemaPath('audited', '/conformance'), {
      key: owner.key,
      body: { mode: 'full', max_examples: 3 },
    });
    expect(res.status).toBe(200);
    const report = res.body.result;
    expect(report.mode).toBe('full');
    expect(report.scan).toEqual(
      expect.objectContaining({
        exact: true,
        stopped_because: 'end_of_collection',
        points_scanned: 150,
      }),
    );
    // ids 0,10,...,140 lack title (15); ids 1,26,51,76,101,126 carry a numeric tag (6).
    expect(report.points_violating).toBe(21);
    expect(report.points_conforming).toBe(129);
    expect(report.fields).toEqual([
      { field: 'title', points: 15 },
      { field: 'tags[]', points: 6 },
    ]);
    expect(report.offending_point_ids).toEqual([0, 1, 10]);
    expect(await countOf(owner.key, 'audited')).toBe(150);
  });

  test('samples a prefix of the collection by default size, or as asked', async () => {
    const res = await vcall<Result<Report>>(server, 'POST', schemaPath('audited', '/conformance'), {
      key: owner.key,
      body: { sample_size: 100, max_examples: 0 },
    });
    expect(res.body.result.mode).toBe('sample');
    expect(res.body.result.scan).toEqual(
      expect.objectContaining({
        exact: false,
        stopped_because: 'sample_size',
        points_scanned: 100,
      }),
    );
    expect(res.body.result.offending_point_ids).toEqual([]);
    const whole = await vcall<Result<Report>>(
      server,
      'POST',
      schemaPath('audited', '/conformance'),
      {
        key: owner.key,
      },
    );
    expect(whole.body.result.scan.exact).toBe(true);
  });
});

describe('with a spent time budget and small upsert batches', () => {
  let tuned: VectorServer;
  let caller: VectorCaller;

  beforeAll(async () => {
    tuned = await startVectorServer({
      engineUrl: server.engineUrl,
      engineApiKey: server.engineApiKey,
      schema: { scanBudgetMs: 0, pageSize: 50 },
      upsert: { batchPoints: 2, onBodyRead: reads.onBodyRead },
    });
    caller = await createVectorCaller(tuned);
    await createCollection(tuned, caller.key, 'big');
  });
  afterAll(async () => {
    await tuned?.close();
  });

  test('stops a conformance scan at the time budget with scan.exact false', async () => {
    const points = Array.from({ length: 120 }, (_, i) => ({
      id: i,
      vector: vec(i),
      payload: { title: `t${i}` },
    }));
    expect((await upsert(caller.key, 'big', points, tuned)).status).toBe(200);
    await putSchema(
      caller.key,
      'big',
      { schema: PRODUCT, enforcement_mode: 'strict' },
      undefined,
      tuned,
    );
    const res = await vcall<Result<{ scan: Record<string, unknown>; points_conforming: number }>>(
      tuned,
      'POST',
      schemaPath('big', '/conformance'),
      { key: caller.key, body: { mode: 'full' } },
    );
    expect(res.status).toBe(200);
    expect(res.body.result.scan).toEqual(
      expect.objectContaining({ exact: false, stopped_because: 'time_budget', points_scanned: 50 }),
    );
    expect(res.body.result.points_conforming).toBe(50);
  });

  test('a strict refusal part-way through a streamed upsert writes none of its points, earlier batches included', async () => {
    await createCollection(tuned, caller.key, 'batched');
    await putSchema(
      caller.key,
      'batched',
      { schema: PRODUCT, enforcement_mode: 'strict' },
      undefined,
      tuned,
    );
    const point = (id: number, payload: unknown) =>
      JSON.stringify({ id, vector: vec(id), payload });
    // Sent in pieces, so the gateway sees the body arrive (and forwards batches) as it streams.
    const res = await streamedUpsert(tuned, caller.key, 'batched', [
      `{"points":[${point(1, { title: 'a' })},${point(2, { title: 'b' })},`,
      `${point(3, { title: 'c' })},${point(4, { price: 1 })},`,
      `${point(5, { title: 'e' })}]}`,
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('SCHEMA_VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(
      expect.objectContaining({
        violations: [expect.objectContaining({ point_id: 4, field: 'title' })],
        points_written: 0,
      }),
    );
    // The first batch (1, 2) was complete and valid, and still waited for the whole body.
    expect(await countOf(caller.key, 'batched', tuned)).toBe(0);
  });
});

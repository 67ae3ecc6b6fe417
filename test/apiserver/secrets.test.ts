/**
 * The agent secret routes against a real kube-apiserver and FerretDB: every
 * validation rule, the caps, isolation between accounts, where the value is
 * stored (only the agent's Kubernetes Secret, owned by the Agent), and a
 * sweep of every response body and every log line the server wrote that
 * finds no value anywhere.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import {
  ANNOTATIONS,
  API_GROUP,
  API_VERSION,
  OBJECT_NAMES,
  PLURALS,
  secretDataKey,
  type Agent,
} from '../../crds/src/index.js';
import { capturingLogger } from '../harness/capturing-logger.js';
import { generateSecret } from '../../common/secrets.js';
import type { AccountService } from '../../apiserver/src/accounts/account-service.js';
import { buildControlPlane } from '../../apiserver/src/assemble.js';
import { kubeConfig, mongoDatabase } from '../harness/env.js';
import {
  call as rawCall,
  createCaller,
  type ApiResponse,
  type Caller,
} from './control-plane-server.js';

type Secret = {
  id: string;
  agent_id: string;
  key: string;
  description: string | null;
  created_at: string;
  updated_at: string;
};
type Detail = {
  detail: {
    code: string;
    message: string;
    violations?: Array<{ loc: unknown[]; msg: string; type: string }>;
  } & Record<string, unknown>;
};
type Page<T> = { items: T[]; total: number; next_offset: number | null };

const kc = kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);
/** Every log line the server wrote, and every response body it sent, during these tests. */
const logLines: string[] = [];
const bodies: string[] = [];
/** Every value sent to a secret route. */
const sentValues = new Set<string>();

let base: string;
let httpServer: Server;
let closeDb: () => Promise<void>;
let accounts: AccountService;
let owner: Caller;
let stranger: Caller;
let freeCaller: Caller;
let agentId: string;

/** A value no other test uses, remembered for the sweep. */
function value(label: string): string {
  const v = `${label}-${generateSecret().slice(0, 24)}`;
  sentValues.add(v);
  return v;
}

async function call<T = Secret & Detail>(
  method: string,
  path: string,
  opts: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> },
): Promise<ApiResponse<T>> {
  const res = await rawCall<T>({ base }, method, path, opts);
  bodies.push(res.text);
  return res;
}

const secretsOf = (agent: string) => `/api/v1/agents/${agent}/secrets`;

async function newAgent(caller: Caller, name: string): Promise<string> {
  const res = await call<{ id: string }>('POST', '/api/v1/agents', {
    key: caller.key,
    body: { name },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function put(agent: string, body: unknown, caller: Caller = owner) {
  return call('POST', secretsOf(agent), { key: caller.key, body });
}

async function readK8sSecret(namespace: string, agent: string) {
  return core.readNamespacedSecret({ namespace, name: OBJECT_NAMES.agentSecrets(agent) });
}

beforeAll(async () => {
  const log = capturingLogger('apiserver', logLines);
  const { client, db } = await mongoDatabase('secrets');
  const built = await buildControlPlane(
    { mongo: client, db, kc },
    { regions: ['local'], plansJson: undefined, internalSecret: generateSecret() },
    log,
  );
  accounts = built.deps.accounts;
  httpServer = built.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => httpServer.once('listening', resolve));
  base = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  closeDb = async () => {
    await built.caches.stop();
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  };
  owner = await createCaller({ accounts });
  stranger = await createCaller({ accounts });
  freeCaller = await createCaller({ accounts }, { tier: 'free' });
  agentId = await newAgent(owner, 'secret-keeper');
});

afterAll(async () => {
  await new Promise((resolve) => httpServer.close(resolve));
  await closeDb();
});

describe('POST /api/v1/agents/{agent}/secrets', () => {
  it('returns 401 MISSING_API_KEY without a key', async () => {
    const res = await put(agentId, { key: 'A_KEY', value: value('nokey') }, { ...owner, key: '' });
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe('MISSING_API_KEY');
  });

  const invalid: Array<[string, Record<string, unknown>, string, string]> = [
    ['an empty key', { key: '' }, 'key', 'string_too_short'],
    ['a key of 256 characters', { key: 'K'.repeat(256) }, 'key', 'string_too_long'],
    ['a key with a hyphen', { key: 'API-TOKEN' }, 'key', 'string_pattern_mismatch'],
    ['a key starting with a digit', { key: '1TOKEN' }, 'key', 'string_pattern_mismatch'],
    ['a key with a space', { key: 'API TOKEN' }, 'key', 'string_pattern_mismatch'],
    ['an SVC_ key', { key: 'SVC_API_KEY' }, 'key', 'reserved_key'],
    ['a lowercase svc_ key', { key: 'svc_thing' }, 'key', 'reserved_key'],
    ['PORT', { key: 'PORT' }, 'key', 'reserved_key'],
    ['a number as key', { key: 42 }, 'key', 'type_error'],
    ['an empty value', { value: '' }, 'value', 'string_too_short'],
    ['a missing value', { value: undefined }, 'value', 'missing'],
    [
      'a description of 513 characters',
      { description: 'd'.repeat(513) },
      'description',
      'string_too_long',
    ],
    ['an unknown field', { extra: 1 }, '', 'extra_forbidden'],
  ];
  it.each(invalid)('returns 422 VALIDATION_ERROR for %s', async (_title, change, field, type) => {
    const body = { key: 'API_TOKEN', value: value('invalid'), ...change };
    const res = await put(agentId, body);
    expect(res.status).toBe(422);
    expect(res.body.detail.code).toBe('VALIDATION_ERROR');
    const violation = res.body.detail.violations?.find((v) =>
      field ? v.loc.join('.') === `body.${field}` : true,
    );
    expect(violation?.type).toBe(type);
    if (body.value) expect(res.text).not.toContain(String(body.value));
  });

  it('says in the 422 that a key must be usable as an environment variable name', async () => {
    const res = await put(agentId, { key: 'a.b', value: value('envname') });
    expect(res.status).toBe(422);
    expect(res.body.detail.violations?.[0]?.msg).toMatch(/environment variable name/);
  });

  it('never quotes a value of the wrong type, or a malformed body holding a value', async () => {
    const typed = await put(agentId, { key: 'API_TOKEN', value: 987654321987 });
    expect(typed.status).toBe(422);
    expect(typed.text).not.toContain('987654321987');
    const secret = value('malformed');
    const malformed = await call('POST', secretsOf(agentId), {
      key: owner.key,
      rawBody: `{"key":"API_TOKEN","value":${secret}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail.violations?.[0]?.type).toBe('json_invalid');
    expect(malformed.text).not.toContain(secret);
    const asString = await call('POST', secretsOf(agentId), {
      key: owner.key,
      rawBody: JSON.stringify(secret),
      headers: { 'content-type': 'application/json' },
    });
    expect(asString.status).toBe(422);
    expect(asString.text).not.toContain(secret);
  });

  it('returns 413 SECRET_VALUE_TOO_LARGE for a value over 64 KiB, writing nothing', async () => {
    const big = value('big') + 'x'.repeat(64 * 1024);
    const res = await put(agentId, { key: 'BIG', value: big });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatchObject({ code: 'SECRET_VALUE_TOO_LARGE', max_bytes: 65536 });
    const list = await call<Page<Secret>>('GET', secretsOf(agentId), { key: owner.key });
    expect(list.body.items.map((s) => s.key)).not.toContain('BIG');
  });

  it("returns 413 SECRET_VALUE_TOO_LARGE once an agent's values together pass 512 KiB", async () => {
    const agent = await newAgent(owner, 'large-values');
    const chunk = () => value('chunk') + 'y'.repeat(60 * 1024);
    for (let i = 0; i < 8; i++) {
      expect((await put(agent, { key: `CHUNK_${i}`, value: chunk() })).status).toBe(201);
    }
    const res = await put(agent, { key: 'CHUNK_8', value: chunk() });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatchObject({ code: 'SECRET_VALUE_TOO_LARGE', field: 'secrets' });
  });

  it("returns 400 PLAN_LIMIT_EXCEEDED past the plan's secrets per agent, yet still replaces a held key", async () => {
    const agent = await newAgent(freeCaller, 'capped');
    for (let i = 0; i < 10; i++) {
      expect((await put(agent, { key: `K_${i}`, value: value('cap') }, freeCaller)).status).toBe(
        201,
      );
    }
    const over = await put(agent, { key: 'K_10', value: value('cap') }, freeCaller);
    expect(over.status).toBe(400);
    expect(over.body.detail).toMatchObject({
      code: 'PLAN_LIMIT_EXCEEDED',
      field: 'secrets',
      allowed: 10,
      tier: 'free',
    });
    expect((await put(agent, { key: 'K_3', value: value('cap') }, freeCaller)).status).toBe(200);
  });

  it('returns 404 AGENT_NOT_FOUND for an unknown agent', async () => {
    const res = await put('no-such-agent', { key: 'API_TOKEN', value: value('unknown') });
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe('AGENT_NOT_FOUND');
  });

  it('creates a secret (201), returning its record and never the value', async () => {
    const secret = value('create');
    const res = await put(agentId, { key: 'API_TOKEN', value: secret, description: 'payments' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      ['agent_id', 'created_at', 'description', 'id', 'key', 'updated_at'].sort(),
    );
    expect(res.body).toMatchObject({
      agent_id: agentId,
      key: 'API_TOKEN',
      description: 'payments',
    });
    expect(res.text).not.toContain(secret);
  });

  it('stores keys of 253 to 255 characters (the contract allows 255, Kubernetes data keys 253)', async () => {
    const keys = [253, 254, 255].map((n) => `L${String(n)}${'K'.repeat(n - 4)}`);
    const values = new Map(keys.map((key) => [key, value('long')]));
    for (const key of keys) {
      const res = await put(agentId, { key, value: values.get(key) });
      expect([res.status, res.body.key]).toEqual([201, key]);
    }
    const listed = await call<Page<Secret>>('GET', secretsOf(agentId), { key: owner.key });
    expect(listed.body.items.map((s) => s.key)).toEqual(expect.arrayContaining(keys));
    // The value of a key longer than a data key may be is under a derived data key, named on the Secret.
    const k8s = await readK8sSecret(owner.namespace, agentId);
    const envNames = JSON.parse(k8s.metadata?.annotations?.[ANNOTATIONS.secretEnvNames] ?? '{}');
    for (const key of keys) {
      const dataKey = secretDataKey(key);
      expect(dataKey === key).toBe(key.length === 253);
      if (dataKey !== key) expect(envNames[dataKey]).toBe(key);
      expect(Buffer.from(k8s.data?.[dataKey] ?? '', 'base64').toString()).toBe(values.get(key));
    }
    // The Agent names its long keys, so a pod can be given them one by one.
    const agent = (await custom.getNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: owner.namespace,
      plural: PLURALS.Agent,
      name: agentId,
    })) as Agent;
    expect(JSON.parse(agent.metadata.annotations?.[ANNOTATIONS.longSecretKeys] ?? '[]')).toEqual(
      keys.slice(1).sort(),
    );
    // Rotated and deleted by their full key.
    const rotated = await call('POST', `${secretsOf(agentId)}/${keys[2]}/rotate`, {
      key: owner.key,
      body: { value: value('long-rotated') },
    });
    expect(rotated.status).toBe(200);
    for (const key of keys) {
      expect(
        (await call('DELETE', `${secretsOf(agentId)}/${key}`, { key: owner.key })).status,
      ).toBe(204);
    }
    const after = await readK8sSecret(owner.namespace, agentId);
    for (const key of keys) expect(after.data?.[secretDataKey(key)]).toBeUndefined();
    expect(after.metadata?.annotations?.[ANNOTATIONS.secretEnvNames]).toBe('{}');
  });

  it('replaces the value of an existing key (200), keeping its id, created_at and description', async () => {
    const first = await put(agentId, { key: 'UPSERTED', value: value('v1'), description: 'kept' });
    const second = await put(agentId, { key: 'UPSERTED', value: value('v2') });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      id: first.body.id,
      created_at: first.body.created_at,
      description: 'kept',
    });
    expect(Date.parse(second.body.updated_at)).toBeGreaterThanOrEqual(
      Date.parse(first.body.updated_at),
    );
    const cleared = await put(agentId, { key: 'UPSERTED', value: value('v3'), description: null });
    expect(cleared.body.description).toBeNull();
  });

  it("stores the value only in the agent's Secret, owned by the Agent, and stamps its revision on the Agent", async () => {
    const secret = value('stored');
    await put(agentId, { key: 'STORED', value: secret });
    const k8s = await readK8sSecret(owner.namespace, agentId);
    expect(Buffer.from(k8s.data?.STORED ?? '', 'base64').toString()).toBe(secret);
    expect(k8s.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Agent', name: agentId, controller: true }),
    ]);
    expect(JSON.stringify(k8s.metadata)).not.toContain(secret);
    const agent = (await custom.getNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: owner.namespace,
      plural: PLURALS.Agent,
      name: agentId,
    })) as { metadata: { annotations?: Record<string, string> } };
    expect(agent.metadata.annotations?.[ANNOTATIONS.secretsRevision]).toBe(
      k8s.metadata?.resourceVersion,
    );
    expect(JSON.stringify(agent)).not.toContain(secret);
  });
});

describe('GET /api/v1/agents/{agent}/secrets', () => {
  it('returns 401 MISSING_API_KEY without a key', async () => {
    expect((await call('GET', secretsOf(agentId), {})).status).toBe(401);
  });

  it('lists Secret records by key, without values, paged by offset', async () => {
    const res = await call<Page<Secret>>('GET', `${secretsOf(agentId)}?limit=2`, {
      key: owner.key,
    });
    expect(res.status).toBe(200);
    const all = await call<Page<Secret>>('GET', `${secretsOf(agentId)}?limit=100`, {
      key: owner.key,
    });
    const keys = all.body.items.map((s) => s.key);
    expect(keys).toEqual([...keys].sort());
    expect(keys).toEqual(expect.arrayContaining(['API_TOKEN', 'STORED', 'UPSERTED']));
    expect(res.body.items).toEqual(all.body.items.slice(0, 2));
    expect(res.body.next_offset).toBe(2);
    for (const item of all.body.items) expect(item).not.toHaveProperty('value');
  });
});

describe('POST /api/v1/agents/{agent}/secrets/{key}/rotate', () => {
  it('returns 422 VALIDATION_ERROR for an empty value, without a value', async () => {
    const res = await call('POST', `${secretsOf(agentId)}/API_TOKEN/rotate`, {
      key: owner.key,
      body: { value: '' },
    });
    expect(res.status).toBe(422);
    const missing = await call('POST', `${secretsOf(agentId)}/API_TOKEN/rotate`, {
      key: owner.key,
      body: {},
    });
    expect(missing.status).toBe(422);
  });

  it('returns 404 SECRET_NOT_FOUND for a key the agent does not hold', async () => {
    const res = await call('POST', `${secretsOf(agentId)}/NOT_HELD/rotate`, {
      key: owner.key,
      body: { value: value('rotate-missing') },
    });
    expect(res.status).toBe(404);
    expect(res.body.detail).toMatchObject({ code: 'SECRET_NOT_FOUND', key: 'NOT_HELD' });
  });

  it('replaces the value with the one sent, keeping the record', async () => {
    const before = await put(agentId, { key: 'ROTATED', value: value('before') });
    const next = value('after');
    const res = await call('POST', `${secretsOf(agentId)}/ROTATED/rotate`, {
      key: owner.key,
      body: { value: next },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: before.body.id, key: 'ROTATED' });
    expect(res.text).not.toContain(next);
    const k8s = await readK8sSecret(owner.namespace, agentId);
    expect(Buffer.from(k8s.data?.ROTATED ?? '', 'base64').toString()).toBe(next);
  });
});

describe('DELETE /api/v1/agents/{agent}/secrets/{key}', () => {
  it('returns 404 SECRET_NOT_FOUND for a key the agent does not hold', async () => {
    const res = await call('DELETE', `${secretsOf(agentId)}/NOT_HELD`, { key: owner.key });
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe('SECRET_NOT_FOUND');
  });

  it('deletes the key (204) from the records and the Secret', async () => {
    await put(agentId, { key: 'DOOMED', value: value('doomed') });
    const res = await call('DELETE', `${secretsOf(agentId)}/DOOMED`, { key: owner.key });
    expect(res.status).toBe(204);
    const k8s = await readK8sSecret(owner.namespace, agentId);
    expect(k8s.data).not.toHaveProperty('DOOMED');
    const list = await call<Page<Secret>>('GET', `${secretsOf(agentId)}?limit=100`, {
      key: owner.key,
    });
    expect(list.body.items.map((s) => s.key)).not.toContain('DOOMED');
  });
});

describe("another account's agent", () => {
  it('is 404 AGENT_NOT_FOUND on every secret route, lists nothing and changes nothing', async () => {
    const before = await readK8sSecret(owner.namespace, agentId);
    const byName = 'secret-keeper';
    for (const ref of [agentId, byName]) {
      const attempts = [
        await call<Detail & Page<Secret>>('GET', secretsOf(ref), { key: stranger.key }),
        await put(ref, { key: 'API_TOKEN', value: value('stranger') }, stranger),
        await put(ref, { key: 'NEW_ONE', value: value('stranger') }, stranger),
        await call('POST', `${secretsOf(ref)}/API_TOKEN/rotate`, {
          key: stranger.key,
          body: { value: value('stranger') },
        }),
        await call('DELETE', `${secretsOf(ref)}/API_TOKEN`, { key: stranger.key }),
      ];
      for (const res of attempts) {
        expect(res.status).toBe(404);
        expect((res.body as Detail).detail.code).toBe('AGENT_NOT_FOUND');
        expect(res.body).not.toHaveProperty('items');
      }
    }
    const after = await readK8sSecret(owner.namespace, agentId);
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    expect(after.data).toEqual(before.data);
  });
});

describe('the OpenAPI document', () => {
  it('documents the four routes and the records, with no value in any record or example', async () => {
    const res = await call<{
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    }>('GET', '/openapi.json', {});
    const doc = res.body;
    expect(Object.keys(doc.paths['/api/v1/agents/{agent}/secrets'] ?? {}).sort()).toEqual([
      'get',
      'post',
    ]);
    expect(doc.paths['/api/v1/agents/{agent}/secrets/{key}']).toHaveProperty('delete');
    expect(doc.paths['/api/v1/agents/{agent}/secrets/{key}/rotate']).toHaveProperty('post');
    expect(Object.keys(doc.components.schemas.Secret?.properties ?? {})).not.toContain('value');
    const value = doc.components.schemas.SecretCreate?.properties?.value as Record<string, unknown>;
    expect(value).toMatchObject({ type: 'string', minLength: 1, writeOnly: true });
    expect(value).not.toHaveProperty('examples');
    expect(doc.components.schemas.SecretRotate?.properties?.value).not.toHaveProperty('examples');
  });
});

describe('the sweep', () => {
  it('finds no value in any response body or any log line written during these tests', () => {
    expect(sentValues.size).toBeGreaterThan(20);
    expect(bodies.length).toBeGreaterThan(40);
    expect(logLines.length).toBeGreaterThan(40);
    for (const secret of sentValues) {
      for (const body of bodies) expect(body.includes(secret)).toBe(false);
      for (const line of logLines) expect(line.includes(secret)).toBe(false);
    }
  });
});

/**
 * The workspace secret routes against a real kube-apiserver and FerretDB:
 * every validation rule, the caps, 403 for an agent's own key, isolation
 * between accounts, where the value is stored (only the workspace's
 * Kubernetes Secret, owned by the Workspace), the revision stamped on the
 * workspace's agents, and a sweep of every response body and log line the
 * server wrote that finds no value anywhere.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import {
  ANNOTATIONS,
  API_GROUP,
  API_VERSION,
  PLURALS,
  workspaceSecretsName,
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

type WorkspaceSecret = {
  id: string;
  workspace_name: string;
  user_id: string;
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
const logLines: string[] = [];
const bodies: string[] = [];
const sentValues = new Set<string>();

let base: string;
let httpServer: Server;
let closeDb: () => Promise<void>;
let accounts: AccountService;
let owner: Caller;
let stranger: Caller;
let workspace: { id: string; name: string };

/** A value no other test uses, remembered for the sweep. */
function value(label: string): string {
  const v = `${label}-${generateSecret().slice(0, 24)}`;
  sentValues.add(v);
  return v;
}

async function call<T = WorkspaceSecret & Detail>(
  method: string,
  path: string,
  opts: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> },
): Promise<ApiResponse<T>> {
  const res = await rawCall<T>({ base }, method, path, opts);
  bodies.push(res.text);
  return res;
}

const secretsOf = (ws: string) => `/api/v1/workspaces/${ws}/secrets`;

async function newWorkspace(caller: Caller, name: string) {
  const res = await call<{ id: string; name: string }>('POST', '/api/v1/workspaces', {
    key: caller.key,
    body: { name },
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function newAgent(caller: Caller, name: string, workspaceName: string | null) {
  const res = await call<{ id: string }>('POST', '/api/v1/agents', {
    key: caller.key,
    body: { name, workspace_name: workspaceName },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function put(ws: string, body: unknown, caller: Caller = owner) {
  return call('POST', secretsOf(ws), { key: caller.key, body });
}

async function listKeys(ws: string, caller: Caller = owner): Promise<string[]> {
  const res = await call<Page<WorkspaceSecret>>('GET', `${secretsOf(ws)}?limit=100`, {
    key: caller.key,
  });
  expect(res.status).toBe(200);
  return res.body.items.map((s) => s.key);
}

async function readK8sSecret(namespace: string, workspaceId: string) {
  return core.readNamespacedSecret({ namespace, name: workspaceSecretsName(workspaceId) });
}

async function annotationsOf(namespace: string, agentId: string) {
  const agent = (await custom.getNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    namespace,
    plural: PLURALS.Agent,
    name: agentId,
  })) as { metadata: { annotations?: Record<string, string> } };
  return agent.metadata.annotations ?? {};
}

async function revisionOf(namespace: string, agentId: string): Promise<string | undefined> {
  return (await annotationsOf(namespace, agentId))[ANNOTATIONS.secretsRevision];
}

beforeAll(async () => {
  const log = capturingLogger('apiserver', logLines);
  const { client, db } = await mongoDatabase('workspace-secrets');
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
  workspace = await newWorkspace(owner, 'vault');
});

afterAll(async () => {
  await new Promise((resolve) => httpServer.close(resolve));
  await closeDb();
});

describe('POST /api/v1/workspaces/{workspace}/secrets', () => {
  it('returns 401 MISSING_API_KEY without a key', async () => {
    const res = await put(
      workspace.name,
      { key: 'A_KEY', value: value('nokey') },
      {
        ...owner,
        key: '',
      },
    );
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe('MISSING_API_KEY');
  });

  const invalid: Array<[string, Record<string, unknown>, string, string]> = [
    ['an empty key', { key: '' }, 'key', 'string_too_short'],
    ['a key of 256 characters', { key: 'K'.repeat(256) }, 'key', 'string_too_long'],
    ['a key with a hyphen', { key: 'API-TOKEN' }, 'key', 'string_pattern_mismatch'],
    ['a key starting with a digit', { key: '1TOKEN' }, 'key', 'string_pattern_mismatch'],
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
    const res = await put(workspace.name, body);
    expect(res.status).toBe(422);
    expect(res.body.detail.code).toBe('VALIDATION_ERROR');
    const violation = res.body.detail.violations?.find((v) =>
      field ? v.loc.join('.') === `body.${field}` : true,
    );
    expect(violation?.type).toBe(type);
    if (body.value) expect(res.text).not.toContain(String(body.value));
  });

  it('says in the 422 that a key must be usable as an environment variable name', async () => {
    const res = await put(workspace.name, { key: 'A-B', value: value('env') });
    expect(res.text).toContain('environment variable name');
  });

  it('never quotes a malformed body holding a value', async () => {
    const secret = value('malformed');
    const res = await call('POST', secretsOf(workspace.name), {
      key: owner.key,
      rawBody: `{"key":"API_TOKEN","value":"${secret}",}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.text).not.toContain(secret);
  });

  it("returns 403 AGENT_KEY_FORBIDDEN with an agent's own key", async () => {
    const agentId = await newAgent(owner, 'key-holder', workspace.name);
    const key = await accounts.createKey({
      accountId: owner.accountId,
      environment: 'live',
      agentId,
    });
    const agentCaller = { ...owner, key: key.text };
    const res = await put(
      workspace.name,
      { key: 'API_TOKEN', value: value('agentkey') },
      agentCaller,
    );
    expect(res.status).toBe(403);
    expect(res.body.detail.code).toBe('AGENT_KEY_FORBIDDEN');
    const list = await call<Detail>('GET', secretsOf(workspace.name), { key: key.text });
    expect(list.status).toBe(403);
    const del = await call<Detail>('DELETE', `${secretsOf(workspace.name)}/API_TOKEN`, {
      key: key.text,
    });
    expect(del.status).toBe(403);
  });

  it('returns 404 WORKSPACE_NOT_FOUND for an unknown workspace', async () => {
    const res = await put('no-such-workspace', { key: 'API_TOKEN', value: value('unknown') });
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe('WORKSPACE_NOT_FOUND');
  });

  it('returns 413 SECRET_VALUE_TOO_LARGE for a value over 64 KiB, writing nothing', async () => {
    const big = value('big') + 'x'.repeat(64 * 1024);
    const res = await put(workspace.name, { key: 'BIG', value: big });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatchObject({ code: 'SECRET_VALUE_TOO_LARGE', max_bytes: 65536 });
    expect(await listKeys(workspace.name)).not.toContain('BIG');
  });

  it("returns 413 SECRET_VALUE_TOO_LARGE once a workspace's values together pass 512 KiB", async () => {
    const ws = await newWorkspace(owner, 'large-values');
    const chunk = () => value('chunk') + 'y'.repeat(60 * 1024);
    for (let i = 0; i < 8; i++) {
      expect((await put(ws.name, { key: `CHUNK_${i}`, value: chunk() })).status).toBe(201);
    }
    const res = await put(ws.name, { key: 'CHUNK_8', value: chunk() });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatchObject({ code: 'SECRET_VALUE_TOO_LARGE', field: 'secrets' });
  });

  it("returns 400 PLAN_LIMIT_EXCEEDED past the plan's secrets per workspace, yet still replaces a held key", async () => {
    const ws = await newWorkspace(owner, 'capped');
    for (let i = 0; i < 50; i++) {
      expect((await put(ws.name, { key: `K_${i}`, value: value('cap') })).status).toBe(201);
    }
    const over = await put(ws.name, { key: 'K_50', value: value('cap') });
    expect(over.status).toBe(400);
    expect(over.body.detail).toMatchObject({
      code: 'PLAN_LIMIT_EXCEEDED',
      field: 'secrets',
      allowed: 50,
      tier: 'starter',
    });
    expect((await put(ws.name, { key: 'K_3', value: value('cap') })).status).toBe(200);
  });

  it('stores a key of 255 characters, the longest the contract allows, and lists it', async () => {
    const ws = await newWorkspace(owner, 'long-keys');
    const key = `L${'K'.repeat(254)}`;
    const res = await put(ws.name, { key, value: value('longest') });
    expect([res.status, res.body.key]).toEqual([201, key]);
    expect(await listKeys(ws.name)).toEqual([key]);
  });

  it("names its long keys on every agent in it, one created or moved in later too, for the agents' pods", async () => {
    const ws = await newWorkspace(owner, 'long-members');
    const key = `W${'K'.repeat(254)}`;
    const before = await newAgent(owner, 'long-before', ws.name);
    expect((await put(ws.name, { key, value: value('long-member') })).status).toBe(201);
    const listed = (a: Record<string, string>) =>
      JSON.parse(a[ANNOTATIONS.workspaceLongSecretKeys] ?? '[]') as string[];
    expect(listed(await annotationsOf(owner.namespace, before))).toEqual([key]);
    const after = await newAgent(owner, 'long-after', ws.name);
    expect(listed(await annotationsOf(owner.namespace, after))).toEqual([key]);
    const outside = await newAgent(owner, 'long-outside', null);
    expect(listed(await annotationsOf(owner.namespace, outside))).toEqual([]);
    const patch = (workspace: string | null) =>
      call('PATCH', `/api/v1/agents/${outside}`, {
        key: owner.key,
        body: { workspace_name: workspace },
      });
    expect((await patch(ws.name)).status).toBe(200);
    expect(listed(await annotationsOf(owner.namespace, outside))).toEqual([key]);
    expect((await patch(null)).status).toBe(200);
    expect(listed(await annotationsOf(owner.namespace, outside))).toEqual([]);
  });

  it('creates a secret (201), returning its WorkspaceSecret record and never the value', async () => {
    const secret = value('create');
    const res = await put(workspace.name, {
      key: 'API_TOKEN',
      value: secret,
      description: 'Token of the payments API',
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      ['created_at', 'description', 'id', 'key', 'updated_at', 'user_id', 'workspace_name'].sort(),
    );
    expect(res.body).toMatchObject({
      key: 'API_TOKEN',
      workspace_name: 'vault',
      user_id: owner.accountId,
      description: 'Token of the payments API',
    });
    expect(res.text).not.toContain(secret);
  });

  it('replaces the value of an existing key (200), keeping its id, created_at and description', async () => {
    const first = await put(workspace.name, {
      key: 'REPLACED',
      value: value('r1'),
      description: 'd',
    });
    const second = await put(workspace.id, { key: 'REPLACED', value: value('r2') });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      id: first.body.id,
      created_at: first.body.created_at,
      description: 'd',
    });
  });

  it('stores the value only in the workspace Secret, owned by the Workspace, and stamps its revision on every agent in the workspace', async () => {
    const member = await newAgent(owner, 'member', workspace.name);
    const outsider = await newAgent(owner, 'outsider', null);
    const secret = value('stored');
    expect((await put(workspace.name, { key: 'STORED', value: secret })).status).toBe(201);
    const k8s = await readK8sSecret(owner.namespace, workspace.id);
    expect(Buffer.from(k8s.data?.STORED ?? '', 'base64').toString('utf8')).toBe(secret);
    expect(k8s.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Workspace', name: workspace.id, controller: true }),
    ]);
    expect(JSON.stringify(k8s.metadata?.annotations)).not.toContain(secret);
    expect(await revisionOf(owner.namespace, member)).toBe(k8s.metadata?.resourceVersion);
    expect(await revisionOf(owner.namespace, outsider)).toBeUndefined();
  });
});

describe('GET /api/v1/workspaces/{workspace}/secrets', () => {
  it('returns 401 MISSING_API_KEY without a key', async () => {
    const res = await call('GET', secretsOf(workspace.name), {});
    expect(res.status).toBe(401);
  });

  it('lists WorkspaceSecret records by key, without values, paged by offset', async () => {
    const ws = await newWorkspace(owner, 'listed');
    for (const key of ['B_KEY', 'A_KEY', 'C_KEY']) {
      expect((await put(ws.name, { key, value: value('list') })).status).toBe(201);
    }
    const first = await call<Page<WorkspaceSecret>>('GET', `${secretsOf(ws.name)}?limit=2`, {
      key: owner.key,
    });
    expect(first.status).toBe(200);
    expect(first.body.items.map((s) => s.key)).toEqual(['A_KEY', 'B_KEY']);
    expect(first.body).toMatchObject({ total: 3, next_offset: 2 });
    for (const item of first.body.items) expect(item).not.toHaveProperty('value');
    const second = await call<Page<WorkspaceSecret>>(
      'GET',
      `${secretsOf(ws.id)}?limit=2&offset=2`,
      { key: owner.key },
    );
    expect(second.body.items.map((s) => s.key)).toEqual(['C_KEY']);
    expect(second.body.next_offset).toBeNull();
  });
});

describe('DELETE /api/v1/workspaces/{workspace}/secrets/{key}', () => {
  it('returns 404 SECRET_NOT_FOUND for a key the workspace does not hold', async () => {
    const res = await call('DELETE', `${secretsOf(workspace.name)}/NOT_HELD`, { key: owner.key });
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe('SECRET_NOT_FOUND');
  });

  it('deletes the key (204) from the records and the Secret', async () => {
    expect((await put(workspace.name, { key: 'DOOMED', value: value('doomed') })).status).toBe(201);
    const res = await call('DELETE', `${secretsOf(workspace.name)}/DOOMED`, { key: owner.key });
    expect(res.status).toBe(204);
    expect(await listKeys(workspace.name)).not.toContain('DOOMED');
    const k8s = await readK8sSecret(owner.namespace, workspace.id);
    expect(k8s.data).not.toHaveProperty('DOOMED');
  });
});

describe("another account's workspace", () => {
  it('is 404 WORKSPACE_NOT_FOUND on every workspace secret route, lists nothing and changes nothing', async () => {
    const before = await readK8sSecret(owner.namespace, workspace.id);
    for (const ref of [workspace.id, workspace.name]) {
      const attempts = [
        await call<Detail & Page<WorkspaceSecret>>('GET', secretsOf(ref), { key: stranger.key }),
        await put(ref, { key: 'API_TOKEN', value: value('stranger') }, stranger),
        await put(ref, { key: 'NEW_ONE', value: value('stranger') }, stranger),
        await call('DELETE', `${secretsOf(ref)}/API_TOKEN`, { key: stranger.key }),
      ];
      for (const res of attempts) {
        expect(res.status).toBe(404);
        expect((res.body as Detail).detail.code).toBe('WORKSPACE_NOT_FOUND');
        expect(res.body).not.toHaveProperty('items');
      }
    }
    const after = await readK8sSecret(owner.namespace, workspace.id);
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
    expect(after.data).toEqual(before.data);
  });
});

describe('deleting the workspace', () => {
  it('reports the secrets it deleted', async () => {
    const ws = await newWorkspace(owner, 'short-lived');
    expect((await put(ws.name, { key: 'ONE', value: value('del') })).status).toBe(201);
    expect((await put(ws.name, { key: 'TWO', value: value('del') })).status).toBe(201);
    const res = await call<{ secrets_deleted: number }>('DELETE', `/api/v1/workspaces/${ws.name}`, {
      key: owner.key,
    });
    expect(res.status).toBe(200);
    expect(res.body.secrets_deleted).toBe(2);
  });
});

describe('the OpenAPI document', () => {
  it('documents the three routes and the WorkspaceSecret record, without a value', async () => {
    const res = await call<{
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    }>('GET', '/openapi.json', {});
    const doc = res.body;
    expect(Object.keys(doc.paths['/api/v1/workspaces/{workspace}/secrets'] ?? {}).sort()).toEqual([
      'get',
      'post',
    ]);
    expect(doc.paths['/api/v1/workspaces/{workspace}/secrets/{key}']).toHaveProperty('delete');
    expect(Object.keys(doc.components.schemas.WorkspaceSecret?.properties ?? {}).sort()).toEqual(
      ['created_at', 'description', 'id', 'key', 'updated_at', 'user_id', 'workspace_name'].sort(),
    );
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

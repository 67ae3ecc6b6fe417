/** POST /api/v1/agents/{agent}/deploy: the request, the account, and an accepted deployment. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { CoreV1Api } from '@kubernetes/client-node';
import { NODE_SERVICE, PYTHON_SERVICE } from '../../factories/archives.js';
import { readAgent, setAgentStatus, untilServerSees } from '../agents/operator-view.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../control-plane-server.js';
import { deployFiles, type Deployment, type Detail } from './deploy-helpers.js';

let server: TestServer;
let owner: Caller;
let stranger: Caller;

beforeAll(async () => {
  server = await startControlPlaneServer({ maxArchiveBytes: 256 * 1024 });
  owner = await createCaller(server, { tier: 'starter' });
  stranger = await createCaller(server);
});

afterAll(async () => {
  await server.close();
});

async function newAgent(name: string, extra: Record<string, unknown> = {}, who: Caller = owner) {
  const res = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
    key: who.key,
    body: { name, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

const pythonApp = { 'main.py': PYTHON_SERVICE };

describe('POST /api/v1/agents/{agent}/deploy', () => {
  it('returns 401 MISSING_API_KEY without a key', async () => {
    const res = await deployFiles(server, null, 'anything', pythonApp);
    expect(res.status).toBe(401);
  });

  it('returns 415 UNSUPPORTED_MEDIA_TYPE for a body that is not sent as application/gzip', async () => {
    await newAgent('wrong-type');
    const res = await call<Detail>(server, 'POST', '/api/v1/agents/wrong-type/deploy', {
      key: owner.key,
      body: { code: 'print(1)' },
    });
    expect(res.status).toBe(415);
    expect(res.body.detail.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('returns 400 INVALID_ARCHIVE for bytes that are not a tar.gz, and stores nothing', async () => {
    await newAgent('not-tar');
    const before = await server.db.collection('archives.files').countDocuments();
    for (const body of [
      Buffer.from('plain text'),
      gzipSync(Buffer.from('gzip but not tar'.repeat(40))),
    ]) {
      const res = await call<Detail>(server, 'POST', '/api/v1/agents/not-tar/deploy', {
        key: owner.key,
        rawBody: body,
        headers: { 'content-type': 'application/gzip' },
      });
      expect(res.status).toBe(400);
      expect(res.body.detail.code).toBe('INVALID_ARCHIVE');
    }
    expect(await server.db.collection('archives.files').countDocuments()).toBe(before);
  });

  it('returns 413 REQUEST_TOO_LARGE for an archive over the limit, and stores nothing', async () => {
    await newAgent('too-big');
    const before = await server.db.collection('archives.files').countDocuments();
    const res = await deployFiles(server, owner.key, 'too-big', {
      ...pythonApp,
      'blob.bin': { content: randomBytes(400 * 1024) },
    });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatchObject({ code: 'REQUEST_TOO_LARGE', max_bytes: 256 * 1024 });
    expect(await server.db.collection('archives.files').countDocuments()).toBe(before);
  });

  it('returns 400 RUNTIME_IMMUTABLE when svc.yaml changes the runtime', async () => {
    await newAgent('immutable', { runtime: 'python3.11' });
    const res = await deployFiles(server, owner.key, 'immutable', {
      ...pythonApp,
      'svc.yaml': 'runtime: python3.12\n',
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({
      code: 'RUNTIME_IMMUTABLE',
      field: 'runtime',
      current: 'python3.11',
    });
  });

  it('returns 400 PLAN_LIMIT_EXCEEDED when svc.yaml asks for more memory than the plan allows', async () => {
    await newAgent('greedy');
    const res = await deployFiles(server, owner.key, 'greedy', {
      ...pythonApp,
      'svc.yaml': 'memory_mb: 99999\n',
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', field: 'memory_mb' });
  });

  it('returns 403 PLAN_LIMIT_EXCEEDED at deploy, not at create, when the agent quota is used up', async () => {
    const limited = await startControlPlaneServer({
      shareWith: server,
      plansJson: JSON.stringify({ free: { agentQuota: 1 } }),
    });
    try {
      const caller = await createCaller(server, { tier: 'free' });
      const first = await newAgent('quota-one', {}, caller);
      await newAgent('quota-two', {}, caller);
      await setAgentStatus(server.kc, caller.namespace, first, {
        status: 'running',
        deployed: true,
      });
      await untilServerSees(limited, caller.key, caller.namespace, first, {
        status: 'running',
        deployed: true,
      });
      const res = await deployFiles(limited, caller.key, 'quota-two', pythonApp);
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatchObject({
        code: 'PLAN_LIMIT_EXCEEDED',
        field: 'agents',
        allowed: 1,
        tier: 'free',
      });
      // The deployed agent itself may always deploy again.
      expect((await deployFiles(limited, caller.key, 'quota-one', pythonApp)).status).toBe(202);
    } finally {
      await limited.close();
    }
  });

  it("returns 404 AGENT_NOT_FOUND for another account's agent and for a svc.yaml name that does not resolve", async () => {
    const theirs = await newAgent('their-agent', {}, stranger);
    expect((await deployFiles(server, owner.key, theirs, pythonApp)).body.detail.code).toBe(
      'AGENT_NOT_FOUND',
    );
    await newAgent('retarget-missing');
    const res = await deployFiles(server, owner.key, 'retarget-missing', {
      ...pythonApp,
      'svc.yaml': 'name: nobody-here\n',
    });
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe('AGENT_NOT_FOUND');
  });

  it('accepts a deployment with 202: a queued version, a minted key in a Secret, the agent updated', async () => {
    const agentId = await newAgent('first-deploy');
    const res = await deployFiles(server, owner.key, 'first-deploy', {
      ...pythonApp,
      'requirements.txt': 'httpx==0.27.0\n',
      'svc.yaml': 'memory_mb: 512\nschedule: "*/10 * * * *"\n',
    });
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/api/v1/deployments/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      agent_id: agentId,
      version: 1,
      state: 'queued',
      image_size_mb: null,
      regions: ['local'],
      pending_regions: [],
      queue_position: null,
      is_ephemeral: false,
      is_serving: false,
      is_degraded: false,
      regions_total: 1,
      regions_ready: 0,
      pending_region_alert_stage: null,
      can_redeploy: true,
      can_rollback: false,
      cancellation_requested: false,
      cancellation_reason: null,
      created_at: expect.stringMatching(/^\d{4}-/),
      started_at: null,
      deployed_at: null,
      error_message: null,
      warnings: [],
      // An upload; a code-host push names its repository, branch and commit here.
      source: null,
    });

    const agent = await readAgent(server.kc, owner.namespace, agentId);
    expect(agent.spec).toMatchObject({
      memoryMb: 512,
      schedule: '*/10 * * * *',
      targetVersion: 1,
      entrypoint: 'main.py',
    });
    expect(agent.spec.addressLabel).toMatch(/^first-deploy-[a-z0-9]{6}$/);

    const secret = await server.kc
      .makeApiClient(CoreV1Api)
      .readNamespacedSecret({ name: `svc-deploy-${res.body.id}`, namespace: owner.namespace });
    const key = Buffer.from(secret.data?.SVC_API_KEY ?? '', 'base64').toString();
    const resolved = await server.accounts.resolveKey(key);
    expect(resolved?.key).toMatchObject({
      agentId,
      deploymentId: res.body.id,
      environment: 'live',
    });
    expect(secret.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'AgentDeployment',
      name: res.body.id,
      controller: true,
    });

    const again = await deployFiles(server, owner.key, agentId, { ...pythonApp });
    expect(again.body.version).toBe(2);
    const after = await readAgent(server.kc, owner.namespace, agentId);
    expect(after.spec.addressLabel).toBe(agent.spec.addressLabel);
    expect(after.spec).toMatchObject({ memoryMb: 512, schedule: '*/10 * * * *', targetVersion: 2 });
  });

  it('gives concurrent deploys of one agent distinct versions', async () => {
    await newAgent('busy-deployer', { runtime: 'node22' });
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        deployFiles(server, owner.key, 'busy-deployer', { 'index.js': NODE_SERVICE }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([202, 202, 202, 202]);
    expect(results.map((r) => (r.body as Deployment).version).sort()).toEqual([1, 2, 3, 4]);
  });

  it('deploys to the agent that svc.yaml names, without renaming anything', async () => {
    await newAgent('uploader');
    const target = await newAgent('named-target');
    const res = await deployFiles(server, owner.key, 'uploader', {
      ...pythonApp,
      'svc.yaml': 'name: named-target\n',
    });
    expect(res.status).toBe(202);
    expect(res.body.agent_id).toBe(target);
    expect(
      (await call<{ name: string }>(server, 'GET', '/api/v1/agents/uploader', { key: owner.key }))
        .body.name,
    ).toBe('uploader');
  });
});

/**
 * POST /api/v1/agents/{agent}/deploy with archives that expand too far: a gzip
 * bomb (8.6 MB that unpacks to 8 GiB), a file that alone passes the per-file
 * limit, and a 7 MB archive of a million empty files. Each is streamed as it
 * is generated and refused with 413 ARCHIVE_TOO_LARGE while it is still
 * being sent, storing nothing: no GridFS file or chunk, no deployment.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import type { Readable } from 'node:stream';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, PLURALS, type AgentDeployment } from '../../../crds/src/index.js';
import { PLANS } from '../../../apiserver/src/accounts/plans.js';
import {
  gzipBomb,
  gzipBombSize,
  manyEntriesArchive,
  PYTHON_SERVICE,
  type BombShape,
} from '../../factories/archives.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../control-plane-server.js';
import { deployFiles, type Detail } from './deploy-helpers.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
let server: TestServer;
let owner: Caller;

beforeAll(async () => {
  // The default archive size cap (200 MB) lets every one of these bodies through in full.
  server = await startControlPlaneServer();
  owner = await createCaller(server, { tier: 'free' });
});

afterAll(async () => {
  await server.close();
});

async function newAgent(name: string): Promise<string> {
  const res = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** What a refused upload left: the status, the envelope, and how much of the body was sent. */
interface StreamedDeploy {
  status: number;
  body: Detail;
  sentBytes: number;
  elapsedMs: number;
}

/**
 * Streams `body` to the deploy route as it is generated (chunked), and stops
 * sending as soon as the response arrives, as a client does on an early error.
 */
function streamDeploy(agent: string, body: Readable): Promise<StreamedDeploy> {
  const started = Date.now();
  const { hostname, port } = new URL(server.base);
  return new Promise((resolve, reject) => {
    let sentBytes = 0;
    let answered = false;
    const req = request({
      host: hostname,
      port,
      method: 'POST',
      path: `/api/v1/agents/${agent}/deploy`,
      headers: { authorization: `Bearer ${owner.key}`, 'content-type': 'application/gzip' },
    });
    body.on('data', (chunk: Buffer) => (sentBytes += chunk.length));
    req.on('response', (res) => {
      answered = true;
      body.unpipe(req);
      body.destroy();
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        req.destroy();
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Detail,
          sentBytes,
          elapsedMs: Date.now() - started,
        });
      });
    });
    // The server may close the connection on the rest of the body once it has answered.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    body.pipe(req);
  });
}

async function stored(): Promise<{ files: number; chunks: number }> {
  return {
    files: await server.db.collection('archives.files').countDocuments(),
    chunks: await server.db.collection('archives.chunks').countDocuments(),
  };
}

async function deploymentsOf(agentId: string): Promise<unknown[]> {
  const res = await call<{ items: unknown[] }>(
    server,
    'GET',
    `/api/v1/agents/${agentId}/deployments`,
    { key: owner.key },
  );
  expect(res.status).toBe(200);
  return res.body.items;
}

describe('POST /api/v1/agents/{agent}/deploy: archives bounded after decompression', () => {
  const free = PLANS.free.archive;

  it('records the limits the archive was checked against on the deployment, for the builder', async () => {
    const agentId = await newAgent('bounded-ok');
    const res = await deployFiles(server, owner.key, 'bounded-ok', { 'main.py': PYTHON_SERVICE });
    expect(res.status).toBe(202);
    const d = (await server.kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: owner.namespace,
      plural: PLURALS.AgentDeployment,
      name: res.body.id,
    })) as AgentDeployment;
    expect(d.spec.agentId).toBe(agentId);
    expect(d.spec.archiveLimits).toEqual(free);
  });

  it('returns 413 ARCHIVE_TOO_LARGE for a gzip bomb while it streams, and stores nothing', async () => {
    const agentId = await newAgent('bomb');
    // 128 files of 64 MiB (each under the 100 MiB per-file limit): 8 GiB of zeros, 8.6 MB sent.
    const shape: BombShape = { files: 128, fileBytes: 64 * MiB };
    const size = gzipBombSize(shape);
    expect(size).toBeLessThan(10 * MiB);
    const before = await stored();

    const res = await streamDeploy('bomb', gzipBomb(shape));

    expect(res.status).toBe(413);
    expect(res.body.detail).toMatchObject({
      code: 'ARCHIVE_TOO_LARGE',
      field: 'unpacked_bytes',
      allowed: free.maxUnpackedBytes,
      tier: 'free',
      path: 'zeros-8.bin',
    });
    expect(res.body.detail.message).toContain('512 MiB');
    // Refused after the 513th MiB, not after 8 GiB: the rest of the bomb was never read. (What
    // was sent is what was read plus what the sockets buffer, about 4 MB here.)
    expect(res.sentBytes).toBeLessThan(size);
    expect(res.elapsedMs).toBeLessThan(30_000);
    expect(await stored()).toEqual(before);
    expect(await deploymentsOf(agentId)).toEqual([]);
  });

  it('returns 413 ARCHIVE_TOO_LARGE naming a file over the per-file limit, on its header alone', async () => {
    const agentId = await newAgent('one-huge-file');
    const before = await stored();

    // The largest size a ustar header holds: 8 GiB of zeros, 8.6 MB compressed.
    const shape: BombShape = { files: 1, fileBytes: 8 * GiB - 512 };

    const res = await streamDeploy('one-huge-file', gzipBomb(shape));

    expect(res.status).toBe(413);
    expect(res.body.detail).toMatchObject({
      code: 'ARCHIVE_TOO_LARGE',
      field: 'file_bytes',
      allowed: free.maxFileBytes,
      path: 'zeros-0.bin',
    });
    expect(res.body.detail.message).toContain('100 MiB');
    expect(res.sentBytes).toBeLessThan(gzipBombSize(shape));
    expect(res.elapsedMs).toBeLessThan(30_000);
    expect(await stored()).toEqual(before);
    expect(await deploymentsOf(agentId)).toEqual([]);
  });

  it('returns 413 ARCHIVE_TOO_LARGE for a million-entry archive while it streams, and stores nothing', async () => {
    const agentId = await newAgent('million-files');
    const before = await stored();

    const res = await streamDeploy('million-files', manyEntriesArchive(1_000_000));

    expect(res.status).toBe(413);
    expect(res.body.detail).toMatchObject({
      code: 'ARCHIVE_TOO_LARGE',
      field: 'entries',
      allowed: free.maxEntries,
      tier: 'free',
    });
    expect(res.body.detail.message).toContain('20000 entries');
    // About 7 MB in all; refused after its 20,001st entry, a small part of it.
    expect(res.sentBytes).toBeLessThan(3 * MiB);
    expect(res.elapsedMs).toBeLessThan(30_000);
    expect(await stored()).toEqual(before);
    expect(await deploymentsOf(agentId)).toEqual([]);
  });
});

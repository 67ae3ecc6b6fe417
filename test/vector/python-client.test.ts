/**
 * The official Python client (`qdrant-client` from PyPI, pinned in
 * hack/python/requirements.txt and installed into .tools/venv by
 * `node hack/python/ensure-venv.mjs`) against the real gateway, sync and
 * async, configured as a user would: `prefix="api/v1"` and its own
 * `api_key=`. The driver (python/official_client.py) exits 1 naming the
 * first check that failed.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import {
  createCollection,
  createVectorCaller,
  startVectorServer,
  type VectorCaller,
  type VectorServer,
} from './vector-server.js';

const here = dirname(fileURLToPath(import.meta.url));
const python = join(here, '..', '..', '.tools', 'venv', 'bin', 'python');

let server: VectorServer;
let caller: VectorCaller;

beforeAll(async () => {
  server = await startVectorServer();
  caller = await createVectorCaller(server);
  await createCollection(server, caller.key, 'py_docs', 4);
  await createCollection(server, caller.key, 'py_edits', 4);
});
afterAll(async () => {
  await server?.close();
});

/** Runs the driver; resolves with its exit code and output. */
function runDriver(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [join(here, 'python', 'official_client.py')], {
      env: { ...process.env, SVC_VECTORS_URL: server.base, SVC_API_KEY: caller.key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('qdrant-client (sync and async) checks, reads, writes, indexes, queries, edits payloads and deletes through the gateway', async () => {
  if (!existsSync(python)) {
    throw new Error('no Python venv at .tools/venv: run `node hack/python/ensure-venv.mjs` first');
  }
  const { code, stdout, stderr } = await runDriver();
  expect({ code, stderr: stderr.trim() }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(stdout)).toEqual({
    sync: { points_count: 0, collections: 2 },
    edits: { points_count: 8 },
    async: { points_count: 10 },
  });
}, 180_000);

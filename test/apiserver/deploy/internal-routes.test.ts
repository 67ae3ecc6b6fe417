/** The /internal/ routes of build and agent pods: capability tokens, archives and artifacts streamed. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gunzipSync } from 'node:zlib';
import { internalToken } from '../../../common/internal-token.js';
import { PYTHON_SERVICE } from '../../factories/archives.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../control-plane-server.js';
import { deployFiles, type Deployment } from './deploy-helpers.js';

let server: TestServer;
let owner: Caller;
let deployment: Deployment;

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server);
  await call(server, 'POST', '/api/v1/agents', { key: owner.key, body: { name: 'builder-agent' } });
  deployment = (
    await deployFiles(server, owner.key, 'builder-agent', { 'main.py': PYTHON_SERVICE })
  ).body;
});

afterAll(async () => {
  await server.close();
});

const url = (what: string, token?: string) =>
  `/internal/deployments/${deployment.id}/${what}${token === undefined ? '' : `?token=${token}`}`;

describe('internal routes', () => {
  it('refuse a missing token, a token of another purpose and an API key', async () => {
    expect((await call(server, 'GET', url('archive'))).status).toBe(401);
    const wrong = internalToken(server.internalSecret, 'artifact:read', deployment.id);
    const res = await call<{ detail: { code: string } }>(server, 'GET', url('archive', wrong));
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe('INTERNAL_TOKEN_INVALID');
    expect((await call(server, 'GET', url('archive'), { key: owner.key })).status).toBe(401);
  });

  it('serve the code archive to a build pod', async () => {
    const res = await fetch(
      `${server.base}${url('archive', internalToken(server.internalSecret, 'archive:read', deployment.id))}`,
    );
    expect(res.status).toBe(200);
    const tar = gunzipSync(Buffer.from(await res.arrayBuffer()));
    expect(tar.toString('latin1')).toContain('main.py');
    expect(tar.toString('latin1')).toContain('async def app');
  });

  it('store a build artifact and serve it back to an agent pod; a second build replaces it', async () => {
    const write = internalToken(server.internalSecret, 'artifact:write', deployment.id);
    const read = internalToken(server.internalSecret, 'artifact:read', deployment.id);
    expect((await call(server, 'GET', url('artifact', read))).status).toBe(404);
    for (const content of ['first build', 'second build']) {
      const put = await call(server, 'PUT', url('artifact', write), {
        rawBody: Buffer.from(content),
        headers: { 'content-type': 'application/gzip' },
      });
      expect(put.status).toBe(204);
    }
    const got = await fetch(`${server.base}${url('artifact', read)}`);
    expect(await got.text()).toBe('second build');
    expect(
      await server.db.collection('artifacts.files').countDocuments({ filename: deployment.id }),
    ).toBe(1);
  });
});

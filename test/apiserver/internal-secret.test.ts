/**
 * The /internal/ routes open only to tokens signed with the server's own
 * secret: a caller who knows a deployment or agent id and guesses the secret
 * (the old built-in default, an empty or habitual one) gets 401 from every
 * route, in the control plane's error envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { internalToken, type InternalPurpose } from '../../common/internal-token.js';
import { PYTHON_SERVICE } from '../factories/archives.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from './control-plane-server.js';
import { deployFiles } from './deploy/deploy-helpers.js';

/** Secrets an attacker tries first. */
const GUESSES = [
  'dev-only-internal-secret',
  '',
  'secret',
  'changeme',
  'password',
  'admin',
  'internal',
  'svc',
  '123456',
];

let server: TestServer;
let owner: Caller;
let deploymentId: string;
let agentId: string;

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server);
  agentId = (
    await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
      key: owner.key,
      body: { name: 'guarded' },
    })
  ).body.id;
  deploymentId = (await deployFiles(server, owner.key, 'guarded', { 'main.py': PYTHON_SERVICE }))
    .body.id;
});

afterAll(async () => {
  await server.close();
});

/** Each internal route, called with a token signed by `secret`. */
function routes(secret: string) {
  const token = (purpose: InternalPurpose, id: string) =>
    encodeURIComponent(internalToken(secret, purpose, id));
  const deployment = `/internal/deployments/${deploymentId}`;
  return [
    { method: 'GET', path: `${deployment}/archive?token=${token('archive:read', deploymentId)}` },
    {
      method: 'PUT',
      path: `${deployment}/artifact?token=${token('artifact:write', deploymentId)}`,
      rawBody: Buffer.from('forged build'),
      headers: { 'content-type': 'application/gzip' },
    },
    { method: 'GET', path: `${deployment}/artifact?token=${token('artifact:read', deploymentId)}` },
    {
      method: 'POST',
      path: `/internal/agents/${agentId}/logs?token=${token('logs:write', agentId)}`,
      body: {
        account_id: owner.accountId,
        environment: 'live',
        entries: [{ stream: 'stdout', message: 'injected' }],
      },
    },
  ];
}

describe('/internal/ routes', () => {
  it('return 401 INTERNAL_TOKEN_INVALID to tokens signed with a guessable secret', async () => {
    for (const guess of GUESSES) {
      for (const { method, path, ...opts } of routes(guess)) {
        const res = await call<{ detail: { code: string; message: string } }>(
          server,
          method,
          path,
          opts,
        );
        expect([guess, method, path, res.status]).toEqual([guess, method, path, 401]);
        expect(res.body).toEqual({
          detail: { code: 'INTERNAL_TOKEN_INVALID', message: expect.any(String) },
        });
      }
    }
    expect(
      await server.db.collection('artifacts.files').countDocuments({ filename: deploymentId }),
    ).toBe(0);
  });

  it("open to tokens signed with the server's own secret", async () => {
    const statuses = [];
    for (const { method, path, ...opts } of routes(server.internalSecret)) {
      statuses.push((await call(server, method, path, opts)).status);
    }
    // Archive served, artifact stored, artifact served, log lines taken.
    expect(statuses).toEqual([200, 204, 200, 204]);
  });
});

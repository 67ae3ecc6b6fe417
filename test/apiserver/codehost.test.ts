/**
 * Code-host links end to end against the real stack and real Git: a bare
 * repository served by `git http-backend` on loopback (behind a bridge that
 * demands the token), the account's host and token, an agent linked to a
 * branch and subdirectory, and signed push deliveries that deploy exactly
 * the pushed commit (recorded on the deployment as its source), which the
 * local driver then runs and the edge reaches.
 * Replays, bad signatures and other branches deploy nothing; another
 * account's agent is 404 on every link route; and the token and webhook
 * secret appear in no response after the one that made them and in no line
 * the API server, the operator or the edge logs at debug.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { githubSignature } from '../../apiserver/src/codehost/signatures.js';
import { eventually } from '../operator/operator-harness.js';
import {
  call as rawCall,
  createCaller,
  type ApiResponse,
  type Caller,
} from './control-plane-server.js';
import { startCodehostStack, type CodehostStack } from './support/codehost-stack.js';
import { startGitServer, type GitServer } from './support/codehost-git-server.js';
import { deployFiles } from './deploy/deploy-helpers.js';

// A deploy may wait for its build on a cold, shared machine.
jest.setTimeout(240_000);

type Detail = { detail: { code: string; message: string } & Record<string, unknown> };
type Link = {
  agent_id: string;
  repository: string;
  branch: string;
  subdirectory: string | null;
  webhook_url: string;
  webhook_secret?: string;
  recent_deployments: Array<{ deployment_id: string; commit: string; delivery_id: string }>;
};
type Delivered = {
  status: string;
  agent_id: string;
  delivery_id: string;
  commit?: string;
  deployment_id?: string;
  reason?: string;
};
type Deployment = {
  id: string;
  state: string;
  error_message: string | null;
  source?: { type: string; repository: string; branch: string; commit: string } | null;
};

const TOKEN = `glpat-${randomUUID()}`;
let stack: CodehostStack;
let gitServer: GitServer;
let owner: Caller;
let stranger: Caller;
let repoUrl: string;
let agentId: string;
let webhookSecret: string;
let webhookPath: string;
/** Every response body after the link's creation, for the sweep. */
const bodies: string[] = [];

async function call<T = Detail>(
  method: string,
  path: string,
  opts: {
    key?: string | null;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<ApiResponse<T>> {
  const res = await rawCall<T>(stack.server, method, path, opts);
  bodies.push(res.text);
  return res;
}

/** A service answering its commit mark, whether `notes/` and `.env` reached it. */
function service(mark: string): string {
  return [
    'import os',
    'HERE = os.path.dirname(os.path.abspath(__file__))',
    'async def app(scope, receive, send):',
    '    if scope["type"] != "http":',
    '        return',
    '    seen = [n for n in ("notes", ".env", "build.log") if os.path.exists(os.path.join(HERE, n))]',
    `    body = "${mark} " + ",".join(seen)`,
    '    await send({"type": "http.response.start", "status": 200, "headers": []})',
    '    await send({"type": "http.response.body", "body": body.encode()})',
    '',
  ].join('\n');
}

/** A GitHub push delivery of `commit` to `branch`, signed with `secret` unless told otherwise. */
function delivery(
  branch: string,
  commit: string,
  opts: { secret?: string; deliveryId?: string; signature?: string | null } = {},
) {
  const rawBody = JSON.stringify({
    ref: `refs/heads/${branch}`,
    before: '0'.repeat(40),
    after: commit,
    repository: { clone_url: repoUrl, html_url: repoUrl.replace(/\.git$/, '') },
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-github-event': 'push',
    'x-github-delivery': opts.deliveryId ?? randomUUID(),
  };
  const signature =
    opts.signature === undefined
      ? githubSignature(rawBody, opts.secret ?? webhookSecret)
      : opts.signature;
  if (signature !== null) headers['x-hub-signature-256'] = signature;
  return { rawBody, headers };
}

async function deploymentCount(): Promise<number> {
  const res = await call<{ total: number }>('GET', `/api/v1/agents/${agentId}/deployments`, {
    key: owner.key,
  });
  expect(res.status).toBe(200);
  return res.body.total;
}

beforeAll(async () => {
  stack = await startCodehostStack();
  gitServer = await startGitServer(TOKEN);
  owner = await createCaller(stack.server, { tier: 'enterprise' });
  stranger = await createCaller(stack.server, { tier: 'enterprise' });
  repoUrl = await gitServer.createRepository('shop', {
    'README.md': 'root files are not deployed\n',
    'svc/main.py': service('initial'),
  });
  await stack.startOperator((ns) => ns === owner.namespace);
  const created = await call<{ id: string }>('POST', '/api/v1/agents', {
    key: owner.key,
    body: { name: 'shop' },
  });
  expect(created.status).toBe(201);
  agentId = created.body.id;
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await gitServer?.close();
});

describe('the account code host', () => {
  it('returns 401 MISSING_API_KEY without a key', async () => {
    const res = await call('GET', '/api/v1/auth/codehost');
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe('MISSING_API_KEY');
  });

  it('returns 404 CODEHOST_NOT_CONNECTED and a status of not connected before one is set', async () => {
    const res = await call('GET', '/api/v1/auth/codehost', { key: owner.key });
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe('CODEHOST_NOT_CONNECTED');
    const status = await call<{ connected: boolean; token_valid: null }>(
      'GET',
      '/api/v1/auth/codehost/status',
      { key: owner.key },
    );
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ connected: false, token_valid: null });
  });

  it('returns 422 for no body or a body without a token, without echoing a token of the wrong type', async () => {
    const missing = await call('PUT', '/api/v1/auth/codehost', {
      key: owner.key,
      body: { url: gitServer.url },
    });
    expect(missing.status).toBe(422);
    const wrongType = await call('PUT', '/api/v1/auth/codehost', {
      key: owner.key,
      body: { url: gitServer.url, token: 987654321987 },
    });
    expect(wrongType.status).toBe(422);
    expect(wrongType.text).not.toContain('987654321987');
    // No body at all used to reach the handlers as undefined and answer 500.
    for (const path of ['/api/v1/auth/codehost', '/api/v1/agents/shop/codehost']) {
      const bodiless = await call(path.includes('agents') ? 'POST' : 'PUT', path, {
        key: owner.key,
      });
      expect([path, bodiless.status]).toEqual([path, 422]);
    }
  });

  it('returns 400 CODEHOST_URL_NOT_ALLOWED for plain HTTP off loopback and for credentials in the URL', async () => {
    for (const url of ['http://git.example.com', `http://git:${TOKEN}@127.0.0.1:1`]) {
      const res = await call('PUT', '/api/v1/auth/codehost', {
        key: owner.key,
        body: { url, token: TOKEN },
      });
      expect(res.status).toBe(400);
      expect(res.body.detail.code).toBe('CODEHOST_URL_NOT_ALLOWED');
    }
  });

  it('stores the token only in the Secret of the account namespace and never returns it', async () => {
    const res = await call<Record<string, unknown>>('PUT', '/api/v1/auth/codehost', {
      key: owner.key,
      body: { url: `${gitServer.url}/`, token: TOKEN },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      provider: 'git',
      url: gitServer.url,
      username: 'git',
      token_set: true,
    });
    expect(res.text).not.toContain(TOKEN);
    const secret = await stack.server.kc
      .makeApiClient(CoreV1Api)
      .readNamespacedSecret({ namespace: owner.namespace, name: 'svc-codehost' });
    expect(Buffer.from(secret.data?.token ?? '', 'base64').toString()).toBe(TOKEN);
    const stored = await stack.server.db.collection('codehost_accounts').find({}).toArray();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    const read = await call('GET', '/api/v1/auth/codehost', { key: owner.key });
    expect(read.status).toBe(200);
    expect(read.text).not.toContain(TOKEN);
  });
});

describe('an agent link', () => {
  it("returns 404 AGENT_NOT_FOUND for another account's agent on every link route", async () => {
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res = await call(method, `/api/v1/agents/${agentId}/codehost`, {
        key: stranger.key,
        ...(method === 'POST' ? { body: { repository: repoUrl } } : {}),
      });
      expect(res.status).toBe(404);
      expect(res.body.detail.code).toBe('AGENT_NOT_FOUND');
    }
  });

  it('returns 404 CODEHOST_LINK_NOT_FOUND before the agent is linked', async () => {
    const res = await call('GET', `/api/v1/agents/shop/codehost`, { key: owner.key });
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe('CODEHOST_LINK_NOT_FOUND');
  });

  it("returns 400 CODEHOST_URL_NOT_ALLOWED for a repository off the account's host", async () => {
    const res = await call('POST', `/api/v1/agents/shop/codehost`, {
      key: owner.key,
      body: { repository: 'https://evil.example/shop.git' },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail.code).toBe('CODEHOST_URL_NOT_ALLOWED');
  });

  it('links the agent and shows the webhook secret once, at link time', async () => {
    const res = await rawCall<Link>(stack.server, 'POST', `/api/v1/agents/shop/codehost`, {
      key: owner.key,
      body: { repository: 'shop.git', branch: 'main', subdirectory: 'svc' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      agent_id: agentId,
      repository: repoUrl,
      branch: 'main',
      subdirectory: 'svc',
      recent_deployments: [],
    });
    expect(res.body.webhook_url).toBe(`${stack.server.base}/api/v1/webhooks/codehost/${agentId}`);
    expect(res.body.webhook_secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    webhookSecret = res.body.webhook_secret ?? '';
    webhookPath = new URL(res.body.webhook_url).pathname;
    const again = await call<Link>('GET', `/api/v1/agents/${agentId}/codehost`, { key: owner.key });
    expect(again.status).toBe(200);
    expect(again.body.webhook_secret).toBeUndefined();
    expect(again.text).not.toContain(webhookSecret);
  });

  it('reports the token working by git ls-remote of the linked repository, and failing with a wrong one', async () => {
    type Status = {
      connected: boolean;
      token_valid: boolean;
      checks: Array<{ kind: string; ok: boolean }>;
    };
    const good = await call<Status>('GET', '/api/v1/auth/codehost/status', { key: owner.key });
    expect(good.body).toMatchObject({
      connected: true,
      token_valid: true,
      checks: [{ kind: 'ls-remote', target: repoUrl, ok: true }],
    });
    const seenBefore = gitServer.seenAuthorizations.length;
    const wrong = `wrong-${randomUUID()}`;
    await call('PUT', '/api/v1/auth/codehost', {
      key: owner.key,
      body: { url: gitServer.url, token: wrong },
    });
    const bad = await call<Status>('GET', '/api/v1/auth/codehost/status', { key: owner.key });
    expect(bad.body).toMatchObject({ connected: true, token_valid: false });
    expect(bad.text).not.toContain(wrong);
    // The Git server really was asked, with the wrong token.
    const asked = gitServer.seenAuthorizations.slice(seenBefore);
    expect(
      asked.some((a) =>
        Buffer.from(a.replace(/^Basic /, ''), 'base64')
          .toString()
          .endsWith(wrong),
      ),
    ).toBe(true);
    const restored = await call('PUT', '/api/v1/auth/codehost', {
      key: owner.key,
      body: { url: gitServer.url, token: TOKEN },
    });
    expect(restored.status).toBe(200);
  });
});

describe('push webhooks', () => {
  let firstCommit: string;
  let firstDelivery: { rawBody: string; headers: Record<string, string> };

  it('returns 401 WEBHOOK_SIGNATURE_INVALID for a missing or wrong signature, and deploys nothing', async () => {
    const commit = await gitServer.commit(
      'shop',
      'main',
      { 'svc/main.py': service('unsigned') },
      'u',
    );
    const before = await deploymentCount();
    for (const opts of [
      { signature: null },
      { secret: `${webhookSecret}x` },
      { signature: 'sha256=00' },
    ]) {
      const res = await call('POST', webhookPath, delivery('main', commit, opts));
      expect(res.status).toBe(401);
      expect(res.body.detail.code).toBe('WEBHOOK_SIGNATURE_INVALID');
    }
    const generic = await call(
      'POST',
      '/api/v1/webhooks/codehost',
      delivery('main', commit, { secret: 'nope' }),
    );
    expect(generic.status).toBe(401);
    expect(await deploymentCount()).toBe(before);
  });

  it('returns 415 for a signed delivery that is not JSON and 422 for a signed body that is not an object', async () => {
    const before = await deploymentCount();
    const form = 'payload=%7B%7D';
    const formRes = await call('POST', webhookPath, {
      rawBody: form,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-hub-signature-256': githubSignature(form, webhookSecret),
      },
    });
    expect(formRes.status).toBe(415);
    expect(formRes.body.detail.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const list = '[1]';
    const listRes = await call('POST', webhookPath, {
      rawBody: list,
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': githubSignature(list, webhookSecret),
      },
    });
    expect(listRes.status).toBe(422);
    expect(listRes.body.detail.code).toBe('VALIDATION_ERROR');
    expect(await deploymentCount()).toBe(before);
  });

  it('deploys exactly the pushed commit of the linked branch, packed honouring .svcignore, and the agent answers from it', async () => {
    firstCommit = await gitServer.commit(
      'shop',
      'main',
      {
        'svc/main.py': service('commit-one'),
        'svc/.svcignore': 'notes/\n',
        'svc/notes/plan.txt': 'not deployed\n',
        'svc/.env': 'SECRET=1\n',
        'svc/build.log': 'not deployed\n',
      },
      'one',
    );
    // The branch moves on before the delivery arrives: the delivery's own commit is deployed.
    await gitServer.commit('shop', 'main', { 'svc/main.py': service('commit-later') }, 'later');
    firstDelivery = delivery('main', firstCommit);
    const res = await call<Delivered>('POST', webhookPath, firstDelivery);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'deployed', agent_id: agentId, commit: firstCommit });
    const deploymentId = res.body.deployment_id ?? '';
    const final = await eventually(
      async () =>
        (await call<Deployment>('GET', `/api/v1/deployments/${deploymentId}`, { key: owner.key }))
          .body,
      (d) => ['active', 'failed'].includes(d.state),
      'webhook deployment settled',
      180_000,
    );
    expect(final).toMatchObject({ state: 'active', error_message: null });
    // The deployment itself records the commit it was made from, in the record and the lists.
    const source = { type: 'codehost', repository: repoUrl, branch: 'main', commit: firstCommit };
    expect(final.source).toEqual(source);
    for (const path of [`/api/v1/agents/${agentId}/deployments`, '/api/v1/deployments']) {
      const list = await call<{ items: Deployment[] }>('GET', path, { key: owner.key });
      expect(list.body.items.find((d) => d.id === deploymentId)?.source).toEqual(source);
    }
    const agent = await eventually(
      async () =>
        (await call<{ url: string | null }>('GET', `/api/v1/agents/${agentId}`, { key: owner.key }))
          .body,
      (a) => a.url !== null,
      'agent url',
    );
    const answer = await eventually(
      () => stack.viaEdge(`${agent.url ?? ''}/`),
      (r) => r.status === 200,
      'agent answering',
      60_000,
    );
    expect(answer.text).toBe('commit-one ');
    const link = await call<Link>('GET', `/api/v1/agents/${agentId}/codehost`, { key: owner.key });
    expect(link.body.recent_deployments).toEqual([
      expect.objectContaining({ deployment_id: deploymentId, commit: firstCommit }),
    ]);
  });

  it('records no source on an uploaded deployment', async () => {
    const created = await call('POST', '/api/v1/agents', {
      key: stranger.key,
      body: { name: 'uploaded' },
    });
    expect(created.status).toBe(201);
    const upload = await deployFiles(stack.server, stranger.key, 'uploaded', {
      'main.py': service('upload'),
    });
    expect(upload.status).toBe(202);
    expect(upload.body.source).toBeNull();
    const read = await call<Deployment>('GET', `/api/v1/deployments/${upload.body.id}`, {
      key: stranger.key,
    });
    expect(read.body.source).toBeNull();
  });

  it('does nothing for the same delivery replayed', async () => {
    const before = await deploymentCount();
    const res = await call<Delivered>('POST', webhookPath, firstDelivery);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('duplicate');
    // The delivery id header is not signed: the same body under a new id is the same delivery.
    const renamed = await call<Delivered>('POST', webhookPath, {
      ...firstDelivery,
      headers: { ...firstDelivery.headers, 'x-github-delivery': randomUUID() },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.status).toBe('duplicate');
    expect(await deploymentCount()).toBe(before);
  });

  it('does nothing for the push replayed after its delivery ids are forgotten, under any id or body', async () => {
    const before = await deploymentCount();
    // Delivery ids are pruned after a week; a signed push captured and replayed later
    // must not deploy its (by then old) commit again.
    const forgotten = await stack.server.db
      .collection('codehost_deliveries')
      .deleteMany({ agentId });
    expect(forgotten.deletedCount).toBeGreaterThan(0);
    const replayed = await call<Delivered>('POST', webhookPath, firstDelivery);
    expect(replayed.status).toBe(200);
    expect(replayed.body.status).toBe('duplicate');
    // Another push of the same commit (another body, another id) is the same deployment too.
    const repushed = delivery('main', firstCommit);
    const rawBody = repushed.rawBody.replace('0'.repeat(40), 'f'.repeat(40));
    const again = await call<Delivered>('POST', webhookPath, {
      rawBody,
      headers: {
        ...repushed.headers,
        'x-hub-signature-256': githubSignature(rawBody, webhookSecret),
      },
    });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('duplicate');
    expect(await deploymentCount()).toBe(before);
  });

  it('returns 202 ignored for a push to another branch, on both routes', async () => {
    const commit = await gitServer.commit(
      'shop',
      'feature',
      { 'svc/main.py': service('feature') },
      'f',
    );
    const before = await deploymentCount();
    for (const path of [webhookPath, '/api/v1/webhooks/codehost']) {
      const res = await call<Delivered>('POST', path, delivery('feature', commit));
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'ignored', agent_id: agentId });
      expect(res.body.reason).toContain('feature');
    }
    expect(await deploymentCount()).toBe(before);
  });

  it("verifies GitLab's X-Gitlab-Token and Gitea's X-Gitea-Signature forms too", async () => {
    const gitlabBody = JSON.stringify({
      object_kind: 'push',
      ref: 'refs/heads/feature',
      after: 'b'.repeat(40),
      project: { git_http_url: repoUrl },
    });
    const gitlab = (token: string) =>
      call<Delivered>('POST', webhookPath, {
        rawBody: gitlabBody,
        headers: {
          'content-type': 'application/json',
          'x-gitlab-event': 'Push Hook',
          'x-gitlab-event-uuid': randomUUID(),
          'x-gitlab-token': token,
        },
      });
    expect((await gitlab(webhookSecret)).body).toMatchObject({ status: 'ignored' });
    expect((await gitlab(`${webhookSecret}x`)).status).toBe(401);
    const giteaBody = JSON.stringify({
      ref: 'refs/heads/feature',
      after: 'c'.repeat(40),
      repository: { clone_url: repoUrl },
    });
    const gitea = (secret: string) =>
      call<Delivered>('POST', '/api/v1/webhooks/codehost', {
        rawBody: giteaBody,
        headers: {
          'content-type': 'application/json',
          'x-gitea-event': 'push',
          'x-gitea-delivery': randomUUID(),
          'x-gitea-signature': githubSignature(giteaBody, secret).slice('sha256='.length),
        },
      });
    const signed = await gitea(webhookSecret);
    expect(signed.status).toBe(202);
    expect(signed.body).toMatchObject({ status: 'ignored', agent_id: agentId });
    expect((await gitea('other')).status).toBe(401);
  });

  it('returns 413 for a body over the cap without reading it', async () => {
    const res = await call('POST', webhookPath, {
      rawBody: 'x'.repeat(1024 * 1024 + 1),
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00' },
    });
    expect(res.status).toBe(413);
  });

  it("drops a deleted agent's link at its next push: 202 ignored, then 401", async () => {
    const gone = await call<{ id: string }>('POST', '/api/v1/agents', {
      key: owner.key,
      body: { name: 'gone' },
    });
    expect(gone.status).toBe(201);
    const link = await rawCall<Link>(stack.server, 'POST', '/api/v1/agents/gone/codehost', {
      key: owner.key,
      body: { repository: repoUrl, subdirectory: 'svc' },
    });
    expect(link.status).toBe(201);
    const secret = link.body.webhook_secret ?? '';
    const path = `/api/v1/webhooks/codehost/${gone.body.id}`;
    expect((await call('DELETE', '/api/v1/agents/gone', { key: owner.key })).status).toBe(202);
    const commit = await gitServer.commit('shop', 'main', { 'svc/main.py': service('gone') }, 'g');
    const res = await call<Delivered>('POST', path, delivery('main', commit, { secret }));
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'ignored', reason: 'the agent no longer exists' });
    const later = await call('POST', path, delivery('main', commit, { secret }));
    expect(later.status).toBe(401);
  });

  it('unlinks: the secret is deleted and later deliveries are 401', async () => {
    const res = await call('DELETE', `/api/v1/agents/${agentId}/codehost`, { key: owner.key });
    expect(res.status).toBe(204);
    const after = await call(
      'POST',
      webhookPath,
      delivery('main', firstCommit, { deliveryId: randomUUID() }),
    );
    expect(after.status).toBe(401);
    await expect(
      stack.server.kc
        .makeApiClient(CoreV1Api)
        .readNamespacedSecret({ namespace: owner.namespace, name: `svc-codehost-link-${agentId}` }),
    ).rejects.toMatchObject({ code: 404 });
  });

  it('disconnects the host and deletes its token', async () => {
    const res = await call('DELETE', '/api/v1/auth/codehost', { key: owner.key });
    expect(res.status).toBe(204);
    const again = await call('DELETE', '/api/v1/auth/codehost', { key: owner.key });
    expect(again.status).toBe(404);
    await expect(
      stack.server.kc
        .makeApiClient(CoreV1Api)
        .readNamespacedSecret({ namespace: owner.namespace, name: 'svc-codehost' }),
    ).rejects.toMatchObject({ code: 404 });
  });

  it("shows neither the token nor the webhook secret in any later response or any line of the API server's, operator's or edge's logs", () => {
    expect(stack.logLines.some((l) => l.includes('codehost delivery'))).toBe(true);
    // The operator's log (at debug) is swept too: it built and ran the deployed commit.
    expect(stack.logLines.some((l) => l.includes('"component":"operator"'))).toBe(true);
    expect(bodies.length).toBeGreaterThan(20);
    for (const secret of [TOKEN, webhookSecret]) {
      for (const body of bodies) expect(body.includes(secret)).toBe(false);
      for (const line of stack.logLines) expect(line.includes(secret)).toBe(false);
    }
  });
});

/**
 * The code-host routes' limits and who may use them, against the real stack:
 * webhook deliveries are rate-limited per agent (signed or not, so a flood
 * of forgeries cannot make the server read bodies or ask Kubernetes without
 * end), the rule that hosts are HTTPS holds when configuration does not
 * allow loopback HTTP, and an agent's own key cannot manage the account's
 * code host. And a hostile tenant's repository, against real git: a "git
 * bomb" tree is refused before checkout with the plan's archive limits, a
 * subdirectory that is a symbolic link to another repository of the host is
 * not followed, and the status check follows no redirect of the host's API.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { lstat, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { checkoutCommit } from '../../apiserver/src/codehost/git.js';
import { pinHost } from '../../apiserver/src/codehost/host-address.js';
import { githubSignature } from '../../apiserver/src/codehost/signatures.js';
import {
  call as rawCall,
  createCaller,
  type ApiResponse,
  type Caller,
} from './control-plane-server.js';
import { startCodehostStack, type CodehostStack } from './support/codehost-stack.js';
import { git, startGitServer, type GitServer } from './support/codehost-git-server.js';

jest.setTimeout(120_000);

type Detail = { detail: { code: string } & Record<string, unknown> };

let limited: CodehostStack;
let strict: CodehostStack;
let owner: Caller;
let gitServer: GitServer;
const TOKEN = `glpat-${randomUUID()}`;
const scratch: string[] = [];

const call = <T = Detail>(
  stack: CodehostStack,
  method: string,
  path: string,
  opts: {
    key?: string | null;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<ApiResponse<T>> => rawCall<T>(stack.server, method, path, opts);

beforeAll(async () => {
  limited = await startCodehostStack({ webhookPerMinute: 3 });
  strict = await startCodehostStack({ allowLoopbackHttp: false });
  owner = await createCaller(limited.server, { tier: 'enterprise' });
  gitServer = await startGitServer(TOKEN);
});

afterAll(async () => {
  await limited?.close();
  await strict?.close();
  await gitServer?.close();
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

describe('webhook rate limit', () => {
  /** A signed ping (200 pong) to the agent's route, or to the shared route when `agentId` is null. */
  const ping = (agentId: string | null, secret: string, url: string) => {
    const rawBody = JSON.stringify({ zen: 'hi', repository: { clone_url: url } });
    return call<Detail>(
      limited,
      'POST',
      agentId ? `/api/v1/webhooks/codehost/${agentId}` : '/api/v1/webhooks/codehost',
      {
        rawBody,
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'ping',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': githubSignature(rawBody, secret),
        },
      },
    );
  };
  const unsigned = (path: string) =>
    call(limited, 'POST', path, {
      rawBody: '{}',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00' },
    });

  it("returns 429 RATE_LIMIT_EXCEEDED with Retry-After past a link's budget of signed deliveries; unsigned floods spend nobody's", async () => {
    const url = await gitServer.createRepository(`limited-${randomUUID().slice(0, 8)}`, {
      'README.md': 'limited\n',
    });
    const first = await linkedAgent('enterprise', url, '');
    const second = await linkedAgent('enterprise', url, '');
    // Forged and unsigned deliveries are 401, however many, on both routes; they count for no link.
    for (let i = 0; i < 6; i++) {
      expect((await unsigned(`/api/v1/webhooks/codehost/${first.agentId}`)).status).toBe(401);
      expect((await unsigned('/api/v1/webhooks/codehost')).status).toBe(401);
    }
    for (let i = 0; i < 3; i++)
      expect((await ping(first.agentId, first.secret, url)).status).toBe(200);
    const over = await ping(first.agentId, first.secret, url);
    expect(over.status).toBe(429);
    expect(over.body.detail.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another link keeps its budget, on the shared route too.
    expect((await ping(null, second.secret, url)).status).toBe(200);
    expect((await ping(second.agentId, second.secret, url)).status).toBe(200);
  });
});

describe('address rules without loopback HTTP', () => {
  it('returns 400 CODEHOST_URL_NOT_ALLOWED for http://127.0.0.1 when configuration does not allow it', async () => {
    const caller = await createCaller(strict.server);
    const res = await call(strict, 'PUT', '/api/v1/auth/codehost', {
      key: caller.key,
      body: { url: 'http://127.0.0.1:3000', token: 'x' },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail.code).toBe('CODEHOST_URL_NOT_ALLOWED');
  });
});

describe('where a code host may be', () => {
  it("returns 400 CODEHOST_URL_NOT_ALLOWED for an https host on this machine's loopback or private and link-local networks, by address or by name", async () => {
    const caller = await createCaller(strict.server);
    for (const url of [
      'https://127.0.0.1:6443',
      'https://localhost:6443',
      'https://[::1]:6443',
      'https://[::ffff:127.0.0.1]',
      'https://169.254.169.254',
      'https://10.0.0.1',
      'https://192.168.1.1',
    ]) {
      const res = await call(strict, 'PUT', '/api/v1/auth/codehost', {
        key: caller.key,
        body: { url, token: 'x' },
      });
      expect([url, res.status, res.body.detail?.code]).toEqual([
        url,
        400,
        'CODEHOST_URL_NOT_ALLOWED',
      ]);
    }
  });
});

describe("an agent's own key", () => {
  it('returns 403 AGENT_KEY_FORBIDDEN on the account code-host routes', async () => {
    const agent = await call<{ id: string }>(limited, 'POST', '/api/v1/agents', {
      key: owner.key,
      body: { name: 'keyed' },
    });
    expect(agent.status).toBe(201);
    const agentKey = await limited.server.accounts.createKey({
      accountId: owner.accountId,
      environment: 'live',
      agentId: agent.body.id,
    });
    for (const [method, path] of [
      ['GET', '/api/v1/auth/codehost'],
      ['GET', '/api/v1/auth/codehost/status'],
      ['DELETE', '/api/v1/auth/codehost'],
      ['PUT', '/api/v1/auth/codehost'],
    ] as const) {
      const res = await call(limited, method, path, {
        key: agentKey.text,
        ...(method === 'PUT' ? { body: { url: 'https://github.com', token: 'x' } } : {}),
      });
      expect([method, path, res.status, res.body.detail.code]).toEqual([
        method,
        path,
        403,
        'AGENT_KEY_FORBIDDEN',
      ]);
    }
  });
});

/** A new directory, removed after the tests. */
async function scratchDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/**
 * Makes the repository `name` on the Git server, then commits on its `main`
 * whatever `build` does in a clone of it (git plumbing included) and pushes;
 * returns the clone URL and the commit.
 */
async function hostileRepository(
  name: string,
  build: (clone: string) => Promise<void>,
): Promise<{ url: string; commit: string }> {
  const url = await gitServer.createRepository(name, { 'README.md': 'hostile\n' });
  const clone = await scratchDir('svc-hostile-clone-');
  const auth = {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`git:${TOKEN}`).toString('base64')}`,
  };
  await git(['clone', '--quiet', url, clone], clone, auth);
  await build(clone);
  await git(['push', '--quiet', '--force', 'origin', 'HEAD:refs/heads/main'], clone, auth);
  return { url, commit: (await git(['rev-parse', 'HEAD'], clone)).trim() };
}

/** A tenant on `limited` with the Git server as its host and an agent linked to `url`'s `subdirectory`. */
async function linkedAgent(
  tier: 'free' | 'enterprise',
  url: string,
  subdirectory: string,
): Promise<{ caller: Caller; agentId: string; secret: string }> {
  const caller = await createCaller(limited.server, { tier });
  const host = await call(limited, 'PUT', '/api/v1/auth/codehost', {
    key: caller.key,
    body: { url: gitServer.url, token: TOKEN },
  });
  expect(host.status).toBe(200);
  const agent = await call<{ id: string }>(limited, 'POST', '/api/v1/agents', {
    key: caller.key,
    body: { name: `hostile-${randomUUID().slice(0, 8)}` },
  });
  expect(agent.status).toBe(201);
  const link = await call<{ webhook_secret: string }>(
    limited,
    'POST',
    `/api/v1/agents/${agent.body.id}/codehost`,
    { key: caller.key, body: { repository: url, branch: 'main', subdirectory } },
  );
  expect(link.status).toBe(201);
  return { caller, agentId: agent.body.id, secret: link.body.webhook_secret };
}

/** A signed GitHub push of `commit` to `main` of `url`, delivered to the agent's webhook. */
function push(agentId: string, secret: string, url: string, commit: string) {
  const rawBody = JSON.stringify({
    ref: 'refs/heads/main',
    before: '0'.repeat(40),
    after: commit,
    repository: { clone_url: url },
  });
  return call<Detail & { status?: string }>(
    limited,
    'POST',
    `/api/v1/webhooks/codehost/${agentId}`,
    {
      rawBody,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': githubSignature(rawBody, secret),
      },
    },
  );
}

async function deploymentCount(caller: Caller, agentId: string): Promise<number> {
  const res = await call<{ total: number }>(
    limited,
    'GET',
    `/api/v1/agents/${agentId}/deployments`,
    {
      key: caller.key,
    },
  );
  expect(res.status).toBe(200);
  return res.body.total;
}

describe('a hostile repository', () => {
  it('returns 413 ARCHIVE_TOO_LARGE for a commit whose tree passes the plan entry limit, before checking it out', async () => {
    // 30 x 30 x 30 names of one blob (27,000 files, free allows 20,000) in a pack of a few KiB,
    // beside a small app/ that alone would deploy: the whole tree lands on disk at checkout.
    const { url, commit } = await hostileRepository('bomb', async (clone) => {
      const names = Array.from({ length: 30 }, (_, i) => `n${i}`);
      const blob = gitWithInput(clone, ['hash-object', '-w', '--stdin'], 'x');
      let entry = `100644 blob ${blob}`;
      for (let level = 0; level < 3; level++) {
        const tree = mktree(clone, names.map((n) => `${entry}\t${n}`).join('\n'));
        entry = `040000 tree ${tree}`;
      }
      const main = gitWithInput(clone, ['hash-object', '-w', '--stdin'], 'x = 1\n');
      const app = mktree(clone, `100644 blob ${main}\tmain.py`);
      const root = mktree(clone, `040000 tree ${app}\tapp\n${entry}\tbomb`);
      const made = (await git(['commit-tree', root, '-m', 'bomb'], clone)).trim();
      // Only the ref moves: the test's own clone never checks the bomb out.
      await git(['update-ref', 'HEAD', made], clone);
    });
    const { caller, agentId, secret } = await linkedAgent('free', url, 'app');
    const started = Date.now();
    const res = await push(agentId, secret, url, commit);
    expect([res.status, res.body.detail?.code]).toEqual([413, 'ARCHIVE_TOO_LARGE']);
    expect(res.body.detail).toMatchObject({ field: 'entries', allowed: 20_000, tier: 'free' });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await deploymentCount(caller, agentId)).toBe(0);
  });

  it("returns 502 CODEHOST_FETCH_FAILED for a subdirectory that is a symbolic link to another of the host's repositories, and packs none of it", async () => {
    // A repository of the API server's machine (the platform's own checkout, say).
    const hostRepo = await scratchDir('svc-host-repo-');
    await git(['init', '--quiet'], hostRepo);
    await writeFile(join(hostRepo, 'main.py'), 'HOST_SECRET = "on the server"\n');
    await git(['add', 'main.py'], hostRepo);
    await git(['commit', '--quiet', '-m', 'host'], hostRepo);
    const { url, commit } = await hostileRepository('linked', async (clone) => {
      await symlink(hostRepo, join(clone, 'app'));
      await git(['add', 'app'], clone);
      await git(['commit', '--quiet', '-m', 'link'], clone);
    });
    const { caller, agentId, secret } = await linkedAgent('enterprise', url, 'app');
    const res = await push(agentId, secret, url, commit);
    expect([res.status, res.body.detail?.code]).toEqual([502, 'CODEHOST_FETCH_FAILED']);
    expect(res.body.detail.message).toMatch(/symbolic link/);
    expect(await deploymentCount(caller, agentId)).toBe(0);
  });

  it('stops a fetch whose pack outgrows the whole-tree limit while git writes it, leaving no more than the bound on disk', async () => {
    const MiB = 1024 * 1024;
    const { url, commit } = await hostileRepository('pack', async (clone) => {
      // Random bytes do not compress: the pack is as large as the file.
      await writeFile(join(clone, 'blob.bin'), randomBytes(6 * MiB));
      await git(['add', 'blob.bin'], clone);
      await git(['commit', '--quiet', '-m', 'large'], clone);
    });
    const dir = await scratchDir('svc-fetch-');
    const limits = { maxUnpackedBytes: MiB, maxEntries: 100, maxFileBytes: MiB };
    const fetched = checkoutCommit(
      dir,
      url,
      'main',
      commit,
      { username: 'git', token: TOKEN },
      limits,
      await pinHost(url, { allowLoopbackHttp: true }),
    );
    await expect(fetched).rejects.toMatchObject({ limit: 'unpacked_bytes', allowed: MiB });
    expect(await sizeOf(dir)).toBeLessThan(3 * MiB);
  });

  it("follows no redirect of the host's user API in the status check", async () => {
    let followed = 0;
    const canary: Server = createServer((_req, res) => {
      followed++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    const canaryUrl = `http://127.0.0.1:${(canary.address() as AddressInfo).port}/internal`;
    const redirecting: Server = createServer((_req, res) => {
      res.writeHead(302, { location: canaryUrl });
      res.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const caller = await createCaller(limited.server);
      const host = await call(limited, 'PUT', '/api/v1/auth/codehost', {
        key: caller.key,
        body: {
          url: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`,
          provider: 'gitea',
          token: TOKEN,
        },
      });
      expect(host.status).toBe(200);
      const status = await call<{ token_valid: boolean; checks: unknown[] }>(
        limited,
        'GET',
        '/api/v1/auth/codehost/status',
        { key: caller.key },
      );
      expect(status.body).toMatchObject({
        token_valid: false,
        checks: [{ kind: 'api', ok: false, error: 'The host answered 302.' }],
      });
      expect(followed).toBe(0);
    } finally {
      canary.close();
      redirecting.close();
    }
  });
});

/** git reading `input` on stdin (plumbing that takes nothing else). */
function gitWithInput(repo: string, args: string[], input: string): string {
  return execFileSync('git', args, {
    cwd: repo,
    input,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: repo, GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();
}

/** A tree object of `listing` (`ls-tree` lines) in `repo`. */
function mktree(repo: string, listing: string): string {
  return gitWithInput(repo, ['mktree'], `${listing}\n`);
}

/** The bytes of every file under `dir`. */
async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true })) {
    const stat = await lstat(join(dir, entry));
    if (stat.isFile()) total += stat.size;
  }
  return total;
}

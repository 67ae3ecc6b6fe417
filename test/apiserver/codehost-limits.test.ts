/**
 * The code-host routes' limits and who may use them, against the real stack:
 * webhook deliveries are rate-limited per agent (signed or not, so a flood
 * of forgeries cannot make the server read bodies or ask Kubernetes without
 * end), the rule that hosts are HTTPS holds when configuration does not
 * allow loopback HTTP, and an agent's own key cannot manage the account's
 * code host.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call as rawCall,
  createCaller,
  type ApiResponse,
  type Caller,
} from './control-plane-server.js';
import { startCodehostStack, type CodehostStack } from './support/codehost-stack.js';

type Detail = { detail: { code: string } & Record<string, unknown> };

let limited: CodehostStack;
let strict: CodehostStack;
let owner: Caller;

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
});

afterAll(async () => {
  await limited?.close();
  await strict?.close();
});

describe('webhook rate limit', () => {
  it('returns 429 RATE_LIMIT_EXCEEDED with Retry-After past the per-agent budget, and other agents keep theirs', async () => {
    const agent = randomUUID();
    const send = (id: string) =>
      call(limited, 'POST', `/api/v1/webhooks/codehost/${id}`, {
        rawBody: '{}',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00' },
      });
    for (let i = 0; i < 3; i++) expect((await send(agent)).status).toBe(401);
    const over = await send(agent);
    expect(over.status).toBe(429);
    expect(over.body.detail.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await send(randomUUID())).status).toBe(401);
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

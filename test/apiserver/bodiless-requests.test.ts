/**
 * Every control-plane route that reads a JSON body, sent none at all (as
 * schemathesis does), answers in the contract's envelope with a documented
 * 4xx or its success, never 500: a body schema that was not `.required()`
 * let `undefined` through to handlers that read its fields (home-region and
 * the code-host routes did, found by bench/fuzz-apis.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from './control-plane-server.js';

type Operation = {
  requestBody?: { required?: boolean; content?: Record<string, unknown> };
  responses: Record<string, unknown>;
};

let server: TestServer;
let caller: Caller;
let paths: Record<string, Record<string, Operation>>;

beforeAll(async () => {
  server = await startControlPlaneServer();
  caller = await createCaller(server);
  for (const [path, body] of [
    ['/api/v1/agents', { name: 'bodiless' }],
    ['/api/v1/workspaces', { name: 'bodiless' }],
  ] as const) {
    expect((await call(server, 'POST', path, { key: caller.key, body })).status).toBe(201);
  }
  paths = (await call<{ paths: typeof paths }>(server, 'GET', '/openapi.json')).body.paths;
});
afterAll(async () => {
  await server?.close();
});

/** A path of the document with its parameters filled in with things the caller holds. */
function concrete(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, (_match, name: string) => {
    if (name === 'agent' || name === 'workspace') return 'bodiless';
    if (name === 'version') return '1';
    if (name === 'key') return 'API_TOKEN';
    return randomUUID();
  });
}

it('answers every JSON-body route sent no body with a documented status in the JSON envelope, never 5xx, and documents which bodies are required', async () => {
  const seen: Array<[string, number]> = [];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!operation.requestBody?.content?.['application/json']) continue;
      const res = await call(server, method.toUpperCase(), concrete(path), { key: caller.key });
      const label = `${method.toUpperCase()} ${path}`;
      seen.push([label, res.status]);
      expect([label, res.status < 500]).toEqual([label, true]);
      expect([label, res.headers.get('content-type')]).toEqual([
        label,
        expect.stringContaining('application/json'),
      ]);
      expect([label, String(res.status) in operation.responses]).toEqual([label, true]);
      // The document marks the body required exactly where leaving it out is refused for that.
      const refusedForNoBody =
        res.status === 422 && res.text.includes('"loc":["body"]') && res.text.includes('missing');
      if (refusedForNoBody) expect([label, operation.requestBody.required]).toEqual([label, true]);
      if (!operation.requestBody.required) expect([label, res.status]).not.toEqual([label, 422]);
    }
  }
  // The routes found by the fuzzer are among them, refused as invalid rather than crashing.
  expect(seen).toEqual(
    expect.arrayContaining([
      ['PATCH /api/v1/users/me/home-region', 422],
      ['PUT /api/v1/auth/codehost', 422],
      ['POST /api/v1/agents/{agent}/codehost', 422],
    ]),
  );
  // Cancel and run take an optional body, and say so.
  for (const path of [
    '/api/v1/agents/{agent}/deployments/{version}/cancel',
    '/api/v1/agents/{agent}/run',
  ])
    expect([path, paths[path]?.post?.requestBody?.required]).toEqual([path, false]);
  expect(seen.length).toBeGreaterThan(10);
});

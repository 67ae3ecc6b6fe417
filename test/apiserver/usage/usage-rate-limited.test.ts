/**
 * A control-plane request refused by the per-minute budget (429) is not
 * usage; every request let through is, whatever it answered.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type TestServer,
} from '../control-plane-server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startControlPlaneServer({
    plansJson: JSON.stringify({ free: { requestsPerMinute: 3 } }),
  });
});

afterAll(async () => {
  await server?.close();
});

describe('control-plane request metering', () => {
  it('counts the requests served, a 404 included, and not those refused with 429', async () => {
    const caller = await createCaller(server, { tier: 'free' });
    const statuses: number[] = [];
    for (const path of [
      '/api/v1/auth/me',
      '/api/v1/agents/nope',
      '/api/v1/agents',
      '/api/v1/agents',
      '/api/v1/auth/me',
    ])
      statuses.push((await call(server, 'GET', path, { key: caller.key })).status);
    expect(statuses).toEqual([200, 404, 200, 429, 429]);
    await server.usage!.writer.flush();
    const groups = await server.usage!.store.totals(
      caller.accountId,
      new Date(Date.now() - 60_000),
      new Date(Date.now() + 60_000),
    );
    expect(groups.map((g) => [g.kind, g.agentId, g.count])).toEqual([['control_request', null, 3]]);
  });
});

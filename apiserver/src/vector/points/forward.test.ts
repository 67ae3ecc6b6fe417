/**
 * What forwardRequest sends the engine for bodies that spell rewritten
 * member names with escapes: the rewrite is decided on the parsed document,
 * so a tenant never reaches another tenant's collection through
 * `lookup\u005ffrom`. The engine here records the request and answers 200:
 * what is under test is the gateway's own rewriting.
 */
import { describe, expect, test } from '@jest/globals';
import type { AuthContext } from '../../auth/authenticate.js';
import type { VectorCollectionDoc } from '../collections/model.js';
import type { EngineClient, EngineResponse } from '../engine-client.js';
import type { SchemaService } from '../schema/service.js';
import { Engines } from '../engines.js';
import { forwardRequest } from './forward.js';
import { ROUTES } from './forwarding-routes.js';

const ACCOUNT = '0123456789abcdef0123456789abcdef';
const doc = {
  accountId: `01234567-89ab-cdef-0123-456789abcdef`,
  environment: 'live',
  workspace: null,
  engineName: `t_live_${ACCOUNT}_docs`,
} as unknown as VectorCollectionDoc;
const caller = { key: {}, account: { _id: doc.accountId } } as unknown as AuthContext;

/** Forwards `text` on the route at `path`; returns the JSON body the engine received. */
async function sent(path: string, text: string): Promise<Record<string, unknown>> {
  const route = ROUTES.find((r) => r.path === path)!;
  let received: unknown;
  const answer = (body: unknown): EngineResponse => {
    received = Buffer.isBuffer(body) ? JSON.parse(body.toString()) : body;
    return { status: 200, text: '{"result":[],"status":"ok"}' };
  };
  const engine = {
    send: async (_method: string, _path: string, body?: unknown) => answer(body),
    search: async (_path: string, _batch: string, body: Buffer) => answer(body),
  } as unknown as EngineClient;
  await forwardRequest(
    { params: { name: 'docs' }, querystring: '', bytes: Buffer.from(text) },
    caller,
    doc,
    route,
    Engines.single(engine),
    {} as SchemaService,
  );
  return received as Record<string, unknown>;
}

const own = (name: string) => `t_live_${ACCOUNT}_${name}`;

describe('forwardRequest with member names spelled with escapes', () => {
  test.each([
    '{"query":[1],"lookup\\u005ffrom":{"collection":"images"}}',
    '{"query":[1],"\\u006cookup_from":{"collection":"images"}}',
    '{"query":[1],"lookup_from":{"\\u0063ollection":"images"}}',
    '{"query":[1],"lookup_from":{"collection":"\\u0069mages"}}',
  ])('rewrites lookup_from to the caller’s own collection: %s', async (text) => {
    expect((await sent('/points/query', text)).lookup_from).toEqual({ collection: own('images') });
  });

  test('rewrites an escaped lookup_from in prefetch and in a query batch', async () => {
    const query = await sent(
      '/points/query',
      '{"prefetch":[{"query":[1],"lookup_fro\\u006d":{"collection":"images"}}]}',
    );
    expect((query.prefetch as { lookup_from: unknown }[])[0]!.lookup_from).toEqual({
      collection: own('images'),
    });
    const batch = await sent(
      '/points/query/batch',
      '{"searches":[{"query":[1],"lookup\\u005ffrom":{"collection":"images"}}]}',
    );
    expect((batch.searches as { lookup_from: unknown }[])[0]!.lookup_from).toEqual({
      collection: own('images'),
    });
  });

  test("turns another tenant's engine name into a name inside the caller's own scope", async () => {
    const foreign = 't_live_ffffffffffffffffffffffffffffffff_docs';
    const body = await sent('/points/query', `{"lookup\\u005ffrom":{"collection":"${foreign}"}}`);
    expect(body.lookup_from).toEqual({ collection: own(foreign) });
  });

  test('strips an escaped with_vectors on search and an escaped limit on count', async () => {
    expect(
      await sent('/points/search', '{"vector":[1],"limit":1,"with_vector\\u0073":true}'),
    ).toEqual({ vector: [1], limit: 1 });
    expect(await sent('/points/count', '{"exact":true,"\\u006cimit":5}')).toEqual({ exact: true });
  });

  test('reads an escaped with_payload on retrieve as sent, defaulting only what is absent', async () => {
    expect(await sent('/points/retrieve', '{"ids":[1],"with_p\\u0061yload":false}')).toEqual({
      ids: [1],
      with_payload: false,
      with_vector: false,
    });
  });
});

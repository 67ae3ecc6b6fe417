/**
 * `GET /api/v1/regions` names each region's public URL from the region
 * registry, and the origin the request came to for a region that has none.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Db, MongoClient } from 'mongodb';
import { createLogger } from '../../common/logger.js';
import { generateSecret } from '../../common/secrets.js';
import { AccountService } from '../../apiserver/src/accounts/account-service.js';
import { collections } from '../../apiserver/src/store/database.js';
import { buildVectorPlane, type VectorPlane } from '../../apiserver/src/vector/assemble.js';
import { kubeConfig, mongoDatabase, uniqueSuffix } from '../harness/env.js';

let mongo: MongoClient;
let db: Db;
let plane: VectorPlane;
let server: Server;
let base: string;
let key: string;

beforeAll(async () => {
  ({ client: mongo, db } = await mongoDatabase('regionurls'));
  plane = await buildVectorPlane(
    { db, kc: kubeConfig() },
    {
      engineUrl: 'http://127.0.0.1:1',
      engineApiKey: generateSecret(),
      regions: ['local', 'eu-west'],
      regionUrls: { local: null, 'eu-west': 'https://eu-west.vectors.example.com' },
    },
    createLogger('apiserver', 'silent'),
  );
  server = createServer(plane.handler).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new AccountService(collections(db), 'local');
  const account = await accounts.createAccount({
    name: `acct-${uniqueSuffix()}`,
    tier: 'starter',
    subscriptionStatus: 'active',
    homeRegion: 'local',
  });
  key = (await accounts.createKey({ accountId: account._id, environment: 'live' })).text;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await plane?.close();
  await db?.dropDatabase().catch(() => undefined);
  await mongo?.close();
});

describe('GET /api/v1/regions with public URLs in the registry', () => {
  it("answers a region's public URL, and this origin for one without", async () => {
    const res = await fetch(`${base}/api/v1/regions`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: unknown }).result).toEqual({
      local: base,
      'eu-west': 'https://eu-west.vectors.example.com',
    });
  });
});

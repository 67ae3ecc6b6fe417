/**
 * The code-host store against real FerretDB: a delivery id is claimed once
 * even when two claims race (the unique _id decides), a released one can be
 * claimed again, and the periodic delete (FerretDB has no TTL indexes)
 * removes only deliveries older than its cut-off; a link's claimed commits
 * outlast it and go with the link.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Db, MongoClient } from 'mongodb';
import { CodehostStore } from '../../apiserver/src/codehost/codehost-store.js';
import { mongoDatabase } from '../harness/env.js';

let client: MongoClient;
let db: Db;
let store: CodehostStore;

beforeAll(async () => {
  ({ client, db } = await mongoDatabase('codehost_store'));
  store = CodehostStore.open(db);
  await store.ensureIndexes();
});

afterAll(async () => {
  await db.dropDatabase().catch(() => undefined);
  await client.close();
});

describe('delivery ids', () => {
  it('lets exactly one of ten racing claims of a delivery win', async () => {
    const claims = await Promise.all(
      Array.from({ length: 10 }, () => store.claimDelivery('agent-a', 'race', new Date())),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it('keeps deliveries of different agents apart, and lets a released delivery be claimed again', async () => {
    expect(await store.claimDelivery('agent-a', 'd-1', new Date())).toBe(true);
    expect(await store.claimDelivery('agent-b', 'd-1', new Date())).toBe(true);
    expect(await store.claimDelivery('agent-a', 'd-1', new Date())).toBe(false);
    await store.releaseDelivery('agent-a', 'd-1');
    expect(await store.claimDelivery('agent-a', 'd-1', new Date())).toBe(true);
  });

  it('prunes only deliveries received before the cut-off', async () => {
    const now = Date.now();
    await store.claimDelivery('agent-c', 'old', new Date(now - 8 * 24 * 3600_000));
    await store.claimDelivery('agent-c', 'new', new Date(now));
    expect(await store.pruneDeliveries(new Date(now - 7 * 24 * 3600_000))).toBe(1);
    expect(await store.claimDelivery('agent-c', 'old', new Date())).toBe(true);
    expect(await store.claimDelivery('agent-c', 'new', new Date())).toBe(false);
  });
});

describe('claimed commits', () => {
  it("lets one of ten racing claims of a link's commit win, outlasting the prune of delivery ids", async () => {
    const commit = 'a'.repeat(40);
    const claims = await Promise.all(
      Array.from({ length: 10 }, () => store.claimCommit('agent-d', commit, new Date())),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    await store.pruneDeliveries(new Date(Date.now() + 3600_000));
    expect(await store.claimCommit('agent-d', commit.toUpperCase(), new Date())).toBe(false);
    // Another link's claim of the same commit is its own.
    expect(await store.claimCommit('agent-e', commit, new Date())).toBe(true);
  });

  it('lets a released commit be claimed again, and forgets the claims of a deleted link', async () => {
    const commit = 'b'.repeat(40);
    expect(await store.claimCommit('agent-f', commit, new Date())).toBe(true);
    await store.releaseCommit('agent-f', commit);
    expect(await store.claimCommit('agent-f', commit, new Date())).toBe(true);
    await store.deleteLink('agent-f');
    expect(await store.claimCommit('agent-f', commit, new Date())).toBe(true);
  });
});

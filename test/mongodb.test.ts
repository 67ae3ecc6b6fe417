/**
 * Smoke tests of the MongoDB-wire server (FerretDB) through the official
 * driver: documents and GridFS files round-trip. FerretDB v1 with SQLite has
 * no usable authentication (see hack/control-plane/components.ts), so it must
 * listen on loopback only.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, ObjectId, type Db, type MongoClient } from 'mongodb';
import { harness, mongoDatabase } from './harness/env.js';

let client: MongoClient;
let db: Db;

beforeAll(async () => {
  ({ client, db } = await mongoDatabase('smoke'));
});

afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

describe('MongoDB-wire server', () => {
  it('writes, queries, updates and deletes a document', async () => {
    const accounts = db.collection<{ _id: string; tier: string; keys: number }>('accounts');
    await accounts.insertOne({ _id: 'acct-1', tier: 'free', keys: 1 });
    await accounts.updateOne({ _id: 'acct-1' }, { $set: { tier: 'starter' }, $inc: { keys: 1 } });
    expect(await accounts.findOne({ tier: 'starter' })).toEqual({
      _id: 'acct-1',
      tier: 'starter',
      keys: 2,
    });
    await accounts.deleteOne({ _id: 'acct-1' });
    expect(await accounts.countDocuments()).toBe(0);
  });

  it('enforces a unique index', async () => {
    const names = db.collection('names');
    await names.createIndex({ account: 1, name: 1 }, { unique: true });
    await names.insertOne({ account: 'a', name: 'x' });
    await expect(names.insertOne({ account: 'a', name: 'x' })).rejects.toMatchObject({
      code: 11000,
    });
  });

  it('streams a GridFS file in and out byte for byte', async () => {
    const bucket = new GridFSBucket(db, { bucketName: 'archives' });
    // Larger than one 255 KiB chunk so the file spans several chunks.
    const content = randomBytes(700 * 1024);
    const upload = bucket.openUploadStream('code.tar.gz', { metadata: { agent: 'hello' } });
    await pipeline(Readable.from([content]), upload);

    const chunks: Buffer[] = [];
    for await (const chunk of bucket.openDownloadStream(upload.id)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(content)).toBe(true);

    const [file] = await bucket.find({ _id: upload.id }).toArray();
    expect(file).toMatchObject({
      filename: 'code.tar.gz',
      length: content.length,
      metadata: { agent: 'hello' },
    });

    await bucket.delete(upload.id);
    expect(await bucket.find({ _id: upload.id }).toArray()).toEqual([]);
  });
});

describe('lookups by _id', () => {
  /** The SQLite query plan FerretDB reports for a find with `filter`. */
  async function plan(collection: string, filter: object): Promise<string> {
    const explained = (await db.command({ explain: { find: collection, filter } })) as {
      queryPlanner?: { Plan?: string[] };
    };
    return (explained.queryPlanner?.Plan ?? []).join('\n');
  }

  it('search the _id index instead of scanning the collection (hack/tools/ferretdb/patch.sh)', async () => {
    const docs = db.collection<{ _id: string | ObjectId | number; n: number }>('by_id');
    const objectId = new ObjectId();
    await docs.insertMany([
      ...Array.from({ length: 200 }, (_, n) => ({ _id: `doc-${n}`, n })),
      { _id: objectId, n: -1 },
      { _id: 7, n: -7 },
    ]);
    for (const id of ['doc-150', objectId]) {
      const found = await plan('by_id', { _id: id });
      expect(found).toMatch(/SEARCH .* USING INDEX/);
      expect(found).not.toMatch(/SCAN/);
    }
    // The lookups answer as before: by string, by ObjectId, and by a type that is not pushed down.
    expect(await docs.findOne({ _id: 'doc-150' })).toEqual({ _id: 'doc-150', n: 150 });
    expect(await docs.findOne({ _id: objectId })).toEqual({ _id: objectId, n: -1 });
    expect(await docs.findOne({ _id: 7 })).toEqual({ _id: 7, n: -7 });
    expect(await docs.findOne({ _id: 'doc-999' })).toBeNull();
    await docs.updateOne({ _id: 'doc-3' }, { $set: { n: 33 } });
    await docs.deleteOne({ _id: 'doc-4' });
    expect(await docs.find({ _id: { $in: ['doc-3', 'doc-4'] } }).toArray()).toEqual([
      { _id: 'doc-3', n: 33 },
    ]);
  });
});

/** Opens and closes a TCP connection; rejects with the socket error (ECONNREFUSED, ...). */
function tcpConnect(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(
        Object.assign(new Error(`timed out connecting to ${host}:${port}`), { code: 'ETIMEDOUT' }),
      );
    });
    socket.once('error', reject);
  });
}

describe('where it listens', () => {
  it('takes connections on 127.0.0.1 only, refusing them on every other address of this machine', async () => {
    const { hostname, port } = new URL(harness().mongoUri);
    expect(hostname).toBe('127.0.0.1');
    await expect(tcpConnect('127.0.0.1', Number(port))).resolves.toBeUndefined();
    // Every address of the machine but loopback and link-local IPv6 (which needs a zone to dial).
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && !a.internal && !a.address.startsWith('fe80:'))
      .map((a) => a!.address);
    for (const address of others) {
      await expect(tcpConnect(address, Number(port))).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
    }
  });
});

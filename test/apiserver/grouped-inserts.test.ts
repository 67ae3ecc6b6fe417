/** Group-committed inserts (apiserver/src/store/grouped-inserts.ts) against the real FerretDB. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient, type Db } from 'mongodb';
import { harness } from '../harness/env.js';
import { GroupedInserts } from '../../apiserver/src/store/grouped-inserts.js';

interface Doc {
  _id: string;
  n: number;
}

let client: MongoClient;
let db: Db;
let insertCommands = 0;

beforeAll(async () => {
  client = new MongoClient(harness().mongoUri, { monitorCommands: true });
  client.on('commandStarted', (event) => {
    if (event.commandName === 'insert') insertCommands++;
  });
  await client.connect();
  db = client.db(`grouped_${Date.now()}_${process.pid}`);
});

afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

/** Each promise's outcome: 'ok' or the error's code. */
function outcomes(promises: Promise<void>[]): Promise<unknown[]> {
  return Promise.all(
    promises.map((p) =>
      p.then(
        () => 'ok',
        (err: unknown) => (err as { code?: unknown }).code ?? err,
      ),
    ),
  );
}

describe('GroupedInserts', () => {
  it('sends a lone insert at once, in one command', async () => {
    const docs = db.collection<Doc>('lone');
    const inserts = new GroupedInserts(docs);
    const before = insertCommands;
    await inserts.insert({ _id: 'a', n: 1 });
    expect(insertCommands - before).toBe(1);
    expect(await docs.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1 });
  });

  it('sends a burst in fewer commands, each insert with its own outcome', async () => {
    const docs = db.collection<Doc>('burst');
    await docs.insertOne({ _id: 'taken', n: 0 });
    const inserts = new GroupedInserts(docs);
    const before = insertCommands;
    const burst = [
      ...Array.from({ length: 40 }, (_, n) => inserts.insert({ _id: `d-${n}`, n })),
      inserts.insert({ _id: 'taken', n: 1 }),
      inserts.insert({ _id: 'twice', n: 1 }),
      inserts.insert({ _id: 'twice', n: 2 }),
    ];
    const results = await outcomes(burst);
    // The first insert went alone; the 42 that arrived meanwhile went together.
    expect(insertCommands - before).toBe(2);
    expect(results.slice(0, 40)).toEqual(Array(40).fill('ok'));
    expect(results[40]).toBe(11000);
    // Of two inserts of one _id, exactly one is stored.
    expect(results.slice(41).sort()).toEqual([11000, 'ok'].sort());
    expect(await docs.countDocuments()).toBe(1 + 40 + 1);
    expect(await docs.findOne({ _id: 'taken' })).toEqual({ _id: 'taken', n: 0 });
    expect(await docs.findOne({ _id: 'twice' })).toEqual({ _id: 'twice', n: 1 });
  });

  it('fails every insert of a batch whose command fails', async () => {
    const closed = new MongoClient(harness().mongoUri);
    await closed.connect();
    const inserts = new GroupedInserts(closed.db(db.databaseName).collection<Doc>('closed'));
    await closed.close();
    const results = await Promise.allSettled([
      inserts.insert({ _id: 'x', n: 1 }),
      inserts.insert({ _id: 'y', n: 2 }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await db.collection<Doc>('closed').countDocuments()).toBe(0);
  });
});

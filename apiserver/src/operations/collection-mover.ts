/**
 * Moves collections' points between regions' engines for a region change,
 * with the gateway's help (vector/collections/move-gate.ts), in steps that
 * are each idempotent, recorded on the collection (its `move`) and on the
 * operation (progress per collection):
 *
 * 1. `copying` (phase copying of the operation): the collection is marked
 *    moving; once every gateway's cached record has it (a settle time), the
 *    points are scrolled from the old engine and upserted into the new one in
 *    batches (the cursor recorded, to resume from), payload indexes copied;
 *    then the writes the gateway logged meanwhile are copied again (their ids
 *    read from the old engine: upserted, or deleted when gone; a write by
 *    filter compares everything), until the log is empty.
 * 2. `switching` (phase draining, past the point of no return): writes are
 *    held by the gateway; after a settle time no write is in flight, the log
 *    is copied until empty, and the collection is switched to the new engine
 *    and its new regions. Held writes then go there.
 * 3. `dropping`: after a settle time no reader uses the old engine; the old
 *    copy is dropped and the move cleared.
 *
 * Rolling back (before step 2) clears the move (the old engine never stopped
 * serving) and drops the new copy.
 *
 * A collection whose old and new regions share an engine copies nothing: it
 * only takes its new regions.
 */
import type { Collections } from '../store/database.js';
import { schemaVersionId } from '../vector/schema/model.js';
import type { EngineClient } from '../vector/engine-client.js';
import { engineFailure } from '../vector/engine-errors.js';
import { engineRegionOf, type Engines } from '../vector/engines.js';
import {
  collectionId,
  engineCollectionName,
  type CollectionMove,
  type VectorCollectionDoc,
} from '../vector/collections/model.js';
import type { CollectionProgress, RegionOperationDoc } from './model.js';
import type { CollectionSteps } from './region-change-steps.js';
import type { RunContext } from './operation-runner.js';

/** Points per engine request: 100 payloads of 64 KB stay under the 10 MB response cap. */
const PAGE = 100;

/** Options of a {@link CollectionMover}. */
export interface CollectionMoverOptions {
  /**
   * How long every gateway takes to see a changed collection record and
   * finish the requests it served under the old one (default 5 s: the
   * gateway's 2 s lookup cache, and time for a write in flight).
   */
  settleMs?: number;
}

type PointId = string | number;
interface EnginePoint {
  id: PointId;
  vector?: unknown;
  payload?: Record<string, unknown> | null;
}

/** The region changes of collections. */
export class CollectionMover implements CollectionSteps {
  constructor(
    private readonly c: Pick<
      Collections,
      'vectorCollections' | 'vectorMoveLog' | 'vectorCollectionUsage' | 'payloadSchemas'
    >,
    private readonly engines: Engines,
    private readonly options: CollectionMoverOptions = {},
  ) {}

  async copy(op: RegionOperationDoc, ctx: RunContext): Promise<void> {
    const progress = await this.withMembers(op);
    for (const doc of await this.docsOf(op)) {
      const p = this.progressOf(progress, doc);
      if (p.state !== 'pending' && p.state !== 'copying') continue;
      await this.copyOne(op, doc, p, progress, ctx);
    }
  }

  async drain(op: RegionOperationDoc, ctx: RunContext): Promise<void> {
    const progress = await this.withMembers(op);
    for (let doc of await this.docsOf(op)) {
      const p = this.progressOf(progress, doc);
      if (p.state === 'done') continue;
      // One that joined the workspace after the copy started is copied now.
      doc = await this.copyOne(op, doc, p, progress, ctx);
      const move = doc.move;
      if (!move || move.operationId !== op._id) {
        await this.retag(op, doc);
      } else {
        if (move.phase === 'copying') {
          doc = await this.setMove(doc, { ...move, phase: 'switching', since: new Date() });
          await ctx.sleep(this.settleMs);
        }
        if (doc.move?.phase === 'switching') {
          await this.catchUp(doc, doc.move, p, progress, ctx, Infinity);
          doc = await this.switchEngines(op, doc, doc.move);
          await ctx.sleep(this.settleMs);
        }
        if (doc.move?.phase === 'dropping') await this.dropOld(op, doc, doc.move);
      }
      p.state = 'done';
      await ctx.save({ collections: progress });
    }
  }

  async rollBack(op: RegionOperationDoc, ctx: RunContext): Promise<void> {
    const progress = op.collections.map((p) => ({ ...p }));
    for (const doc of await this.docsOf(op)) {
      const p = this.progressOf(progress, doc);
      const move = doc.move?.operationId === op._id ? doc.move : undefined;
      if (move && move.phase !== 'dropping') {
        // The old engine serves on; once no gateway logs for the move, the new copy goes.
        await this.c.vectorCollections.updateOne(
          { _id: doc._id },
          { $unset: { move: '' }, $set: { lastChange: change(op, 'rolled_back') } },
        );
        await ctx.sleep(this.settleMs);
        await this.dropCollection(
          this.engines.of(move.toRegion).engine,
          move.engineName ?? doc.engineName,
        );
        await this.c.vectorMoveLog.deleteMany({ collectionId: doc._id });
      } else if (!move) {
        await this.c.vectorCollections.updateOne(
          { _id: doc._id },
          { $set: { lastChange: change(op, 'rolled_back') } },
        );
      }
      p.state = 'rolled_back';
      await ctx.save({ collections: progress });
    }
    // The name reserved in the workspace the collection was to move to.
    await this.c.vectorCollections.deleteMany({ incoming: op._id });
  }

  private get settleMs(): number {
    return this.options.settleMs ?? 5_000;
  }

  /**
   * Marks the collection moving (when it needs to), copies its points into
   * the new engine and the logged writes after them; the record as it is then.
   */
  private async copyOne(
    op: RegionOperationDoc,
    doc: VectorCollectionDoc,
    p: CollectionProgress,
    progress: CollectionProgress[],
    ctx: RunContext,
  ): Promise<VectorCollectionDoc> {
    if (p.state !== 'pending' && p.state !== 'copying') return doc;
    const fromRegion = doc.move?.fromRegion ?? engineRegionOf(doc, this.engines.home);
    const toRegions = op.toRegions;
    const toRegion = toRegions.includes(fromRegion) ? fromRegion : toRegions[0]!;
    const workspace = op.collection?.id === doc._id ? op.collection.toWorkspace : undefined;
    const renamed =
      workspace === undefined
        ? {}
        : {
            workspace,
            collectionId: collectionId({ ...doc, workspace }, doc.name),
            engineName: engineCollectionName({ ...doc, workspace }, doc.name),
          };
    if (this.engines.same(fromRegion, toRegion) && workspace === undefined) {
      p.state = 'copied';
      await ctx.save({ collections: progress });
      return doc;
    }
    if (!doc.move) {
      doc = await this.setMove(doc, {
        operationId: op._id,
        phase: 'copying',
        fromRegion,
        toRegion,
        toRegions,
        ...renamed,
        cursor: null,
        since: new Date(),
      });
      p.state = 'copying';
      await ctx.save({ collections: progress });
      // Every gateway logs this collection's writes from here on.
      await ctx.sleep(this.settleMs);
    } else if (doc.move.operationId !== op._id) {
      throw new Error(`collection ${doc.name} is being moved by operation ${doc.move.operationId}`);
    }
    const move = doc.move!;
    if (move.phase !== 'copying') return doc;
    const { source, target } = this.ends(doc, move);
    await this.ensureCollection(target, doc);
    await this.syncIndexes(source, target);
    let cursor = move.cursor ?? null;
    let first = cursor === null;
    while (first || cursor !== null) {
      first = false;
      const page = await scroll(source, cursor, true);
      await upsert(target, page.points);
      cursor = page.next;
      p.pointsCopied += page.points.length;
      await this.c.vectorCollections.updateOne(
        { _id: doc._id },
        { $set: { move: { ...move, cursor } } },
      );
      await ctx.save({ collections: progress });
    }
    await this.catchUp(doc, move, p, progress, ctx, 5);
    p.state = 'copied';
    await ctx.save({ collections: progress });
    return (await this.c.vectorCollections.findOne({ _id: doc._id })) ?? doc;
  }

  /**
   * Copies again what the writes logged for `doc` changed, in rounds, until a
   * round finds the log empty (or after `rounds`).
   */
  private async catchUp(
    doc: VectorCollectionDoc,
    move: CollectionMove,
    p: CollectionProgress,
    progress: CollectionProgress[],
    ctx: RunContext,
    rounds: number,
  ): Promise<void> {
    const { source, target } = this.ends(doc, move);
    for (let round = 0; round < rounds; round++) {
      const entries = await this.c.vectorMoveLog
        .find({ collectionId: doc._id })
        .limit(1000)
        .toArray();
      if (entries.length === 0) return;
      const ids = new Set<PointId>();
      let everything = false;
      let indexes = false;
      for (const entry of entries) {
        if (entry.indexes) indexes = true;
        else if (entry.ids) for (const id of entry.ids) ids.add(id);
        else everything = true;
      }
      if (indexes) await this.syncIndexes(source, target);
      p.pointsCopied += everything
        ? await resyncAll(source, target)
        : await syncIds(source, target, [...ids]);
      await this.c.vectorMoveLog.deleteMany({ _id: { $in: entries.map((e) => e._id) } });
      await ctx.save({ collections: progress });
    }
  }

  /**
   * Serves the collection from its new engine, in its new regions; moved to
   * another workspace, from the record reserved there (its payload schemas
   * and usage records go with it), the old one kept (not served) until its
   * copy is dropped.
   */
  private async switchEngines(
    op: RegionOperationDoc,
    doc: VectorCollectionDoc,
    move: CollectionMove,
  ): Promise<VectorCollectionDoc> {
    const switched: CollectionMove = { ...move, phase: 'dropping', since: new Date() };
    const served = {
      engineRegion: move.toRegion,
      regions: move.toRegions,
      version: doc.version + 1,
      updatedAt: new Date(),
    };
    if (move.collectionId && move.engineName && move.workspace !== undefined) {
      const { _id: _old, move: _move, lastChange: _last, ...fields } = doc;
      await this.c.vectorCollections.updateOne(
        { _id: move.collectionId },
        {
          $set: {
            ...fields,
            ...served,
            workspace: move.workspace,
            engineName: move.engineName,
            status: 'active',
            lastChange: change(op, 'succeeded'),
          },
          $unset: { incoming: '' },
        },
      );
      await this.rekey(doc._id, move.collectionId);
      await this.c.vectorCollections.updateOne({ _id: doc._id }, { $set: { move: switched } });
      return { ...doc, move: switched };
    }
    await this.c.vectorCollections.updateOne(
      { _id: doc._id },
      { $set: { ...served, move: switched } },
    );
    return { ...doc, ...served, move: switched };
  }

  /** Moves the payload schemas and usage records of collection `from` to `to`. */
  private async rekey(from: string, to: string): Promise<void> {
    // Re-inserted under ids of the new record: the old name may be created again.
    for (const schema of await this.c.payloadSchemas.find({ collectionId: from }).toArray()) {
      const moved = { ...schema, _id: schemaVersionId(to, schema.version), collectionId: to };
      await this.c.payloadSchemas.deleteOne({ _id: moved._id });
      await this.c.payloadSchemas.insertOne(moved);
      await this.c.payloadSchemas.deleteOne({ _id: schema._id });
    }
    for (const usage of await this.c.vectorCollectionUsage.find({ collectionId: from }).toArray()) {
      const moved = { ...usage, _id: `${to}:${usage.agentId}`, collectionId: to };
      await this.c.vectorCollectionUsage.deleteOne({ _id: moved._id });
      await this.c.vectorCollectionUsage.insertOne(moved);
      await this.c.vectorCollectionUsage.deleteOne({ _id: usage._id });
    }
  }

  /** Drops the old engine's copy and ends the move (and the old record, after a workspace move). */
  private async dropOld(op: RegionOperationDoc, doc: VectorCollectionDoc, move: CollectionMove) {
    await this.dropCollection(this.engines.of(move.fromRegion).engine, doc.engineName);
    await this.c.vectorMoveLog.deleteMany({ collectionId: doc._id });
    if (move.workspace !== undefined) {
      await this.c.vectorCollections.deleteOne({ _id: doc._id });
      return;
    }
    await this.c.vectorCollections.updateOne(
      { _id: doc._id },
      { $unset: { move: '' }, $set: { lastChange: change(op, 'succeeded') } },
    );
  }

  /** A collection that moves nothing takes its new regions. */
  private async retag(op: RegionOperationDoc, doc: VectorCollectionDoc): Promise<void> {
    const fromRegion = engineRegionOf(doc, this.engines.home);
    const toRegion = op.toRegions.includes(fromRegion) ? fromRegion : op.toRegions[0]!;
    await this.c.vectorCollections.updateOne(
      { _id: doc._id },
      {
        $set: {
          regions: [...op.toRegions],
          engineRegion: toRegion,
          version: doc.version + 1,
          updatedAt: new Date(),
          lastChange: change(op, 'succeeded'),
        },
      },
    );
  }

  /** The old and new engine collections of a move: each engine's client and the name there. */
  private ends(doc: VectorCollectionDoc, move: CollectionMove) {
    return {
      source: { engine: this.engines.of(move.fromRegion).engine, name: doc.engineName },
      target: {
        engine: this.engines.of(move.toRegion).engine,
        name: move.engineName ?? doc.engineName,
      },
    };
  }

  private async setMove(doc: VectorCollectionDoc, move: CollectionMove) {
    await this.c.vectorCollections.updateOne({ _id: doc._id }, { $set: { move } });
    return { ...doc, move };
  }

  /** The records of the operation's collections: the workspace's, and any it is moving. */
  private async docsOf(op: RegionOperationDoc): Promise<VectorCollectionDoc[]> {
    const tenant = { accountId: op.accountId, environment: op.environment };
    const ids = op.collections.map((p) => p.collectionId).filter((id): id is string => !!id);
    const [members, moving] = await Promise.all([
      op.scope === 'workspace'
        ? this.c.vectorCollections.find({ ...tenant, workspace: op.workspaceName }).toArray()
        : this.c.vectorCollections.find({ ...tenant, _id: { $in: ids } }).toArray(),
      this.c.vectorCollections.find({ ...tenant, 'move.operationId': op._id }).toArray(),
    ]);
    const byId = new Map([...members, ...moving].map((d) => [d._id, d]));
    return [...byId.values()].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  }

  /** The operation's progress with an entry for each of its collections (by id). */
  private async withMembers(op: RegionOperationDoc): Promise<CollectionProgress[]> {
    const progress = op.collections.map((p) => ({ ...p }));
    for (const doc of await this.docsOf(op)) this.progressOf(progress, doc);
    op.collections = progress;
    return progress;
  }

  private progressOf(progress: CollectionProgress[], doc: VectorCollectionDoc) {
    let p =
      progress.find((e) => e.collectionId === doc._id) ??
      progress.find((e) => !e.collectionId && e.name === doc.name);
    if (!p) {
      p = { name: doc.name, state: 'pending', pointsCopied: 0 };
      progress.push(p);
    }
    p.collectionId = doc._id;
    return p;
  }

  /** Creates the engine collection with the record's configuration, unless it exists. */
  private async ensureCollection({ engine, name }: End, doc: VectorCollectionDoc): Promise<void> {
    const path = `/collections/${name}`;
    const found = await engine.send('GET', path);
    if (found.status === 200) return;
    const res = await engine.send('PUT', path, {
      vectors: { size: doc.size, distance: doc.distance },
    });
    if (res.status >= 400 && res.status !== 409) throw engineFailure(res);
  }

  /** Makes the target's payload indexes those of the source. */
  private async syncIndexes(source: End, target: End) {
    const wanted = await payloadIndexes(source);
    const present = await payloadIndexes(target);
    for (const [field, schema] of Object.entries(wanted)) {
      if (JSON.stringify(present[field]) === JSON.stringify(schema)) continue;
      const res = await target.engine.send(
        'PUT',
        `/collections/${target.name}/index`,
        { field_name: field, field_schema: schema },
        'wait=true',
      );
      if (res.status >= 400) throw engineFailure(res);
    }
    for (const field of Object.keys(present)) {
      if (field in wanted) continue;
      const res = await target.engine.send(
        'DELETE',
        `/collections/${target.name}/index/${encodeURIComponent(field)}`,
        undefined,
        'wait=true',
      );
      if (res.status >= 400 && res.status !== 404) throw engineFailure(res);
    }
  }

  private async dropCollection(engine: EngineClient, name: string): Promise<void> {
    const res = await engine.send('DELETE', `/collections/${name}`);
    if (res.status >= 400 && res.status !== 404) throw engineFailure(res);
  }
}

function change(op: RegionOperationDoc, state: 'succeeded' | 'failed' | 'rolled_back') {
  return { operationId: op._id, state, at: new Date() };
}

/** One engine collection: the engine's client and the collection's name there. */
interface End {
  engine: EngineClient;
  name: string;
}

/** One page of the engine's scroll, in id order, from `offset`. */
async function scroll(
  { engine, name }: End,
  offset: PointId | null,
  withVectors: boolean,
  limit = PAGE,
): Promise<{ points: EnginePoint[]; next: PointId | null }> {
  const res = await engine.send('POST', `/collections/${name}/points/scroll`, {
    limit,
    with_payload: withVectors,
    with_vector: withVectors,
    ...(offset === null ? {} : { offset }),
  });
  if (res.status >= 400) throw engineFailure(res);
  const result = (
    JSON.parse(res.text) as {
      result: { points: EnginePoint[]; next_page_offset?: PointId | null };
    }
  ).result;
  return { points: result.points, next: result.next_page_offset ?? null };
}

async function upsert({ engine, name }: End, points: EnginePoint[]) {
  if (points.length === 0) return;
  const body = {
    points: points.map((p) => ({ id: p.id, vector: p.vector, payload: p.payload ?? {} })),
  };
  const res = await engine.send('PUT', `/collections/${name}/points`, body, 'wait=true');
  if (res.status >= 400) throw engineFailure(res);
}

async function remove({ engine, name }: End, ids: PointId[]) {
  if (ids.length === 0) return;
  const res = await engine.send(
    'POST',
    `/collections/${name}/points/delete`,
    { points: ids },
    'wait=true',
  );
  if (res.status >= 400) throw engineFailure(res);
}

async function retrieve({ engine, name }: End, ids: PointId[], full: boolean) {
  const res = await engine.send('POST', `/collections/${name}/points`, {
    ids,
    with_payload: full,
    with_vector: full,
  });
  if (res.status >= 400) throw engineFailure(res);
  return (JSON.parse(res.text) as { result: EnginePoint[] }).result;
}

/** Makes the target hold what the source holds for `ids`; how many were copied. */
async function syncIds(source: End, target: End, ids: PointId[]): Promise<number> {
  let copied = 0;
  for (let i = 0; i < ids.length; i += PAGE) {
    const batch = ids.slice(i, i + PAGE);
    const found = await retrieve(source, batch, true);
    const present = new Set(found.map((p) => String(p.id)));
    await upsert(target, found);
    await remove(
      target,
      batch.filter((id) => !present.has(String(id))),
    );
    copied += found.length;
  }
  return copied;
}

/** Copies every point again and deletes from the target what the source no longer has. */
async function resyncAll(source: End, target: End) {
  let copied = 0;
  let cursor: PointId | null = null;
  do {
    const page = await scroll(source, cursor, true);
    await upsert(target, page.points);
    copied += page.points.length;
    cursor = page.next;
  } while (cursor !== null);
  cursor = null;
  do {
    const page = await scroll(target, cursor, false, 1000);
    const ids = page.points.map((p) => p.id);
    const present = new Set((await retrieve(source, ids, false)).map((p) => String(p.id)));
    await remove(
      target,
      ids.filter((id) => !present.has(String(id))),
    );
    cursor = page.next;
  } while (cursor !== null);
  return copied;
}

/** The payload indexes of an engine collection: field to its schema (none when it does not exist). */
async function payloadIndexes({ engine, name }: End) {
  const res = await engine.send('GET', `/collections/${name}`);
  if (res.status === 404) return {};
  if (res.status >= 400) throw engineFailure(res);
  const schema =
    (
      JSON.parse(res.text) as {
        result?: {
          payload_schema?: Record<string, { data_type?: string; params?: Record<string, unknown> }>;
        };
      }
    ).result?.payload_schema ?? {};
  const out: Record<string, unknown> = {};
  for (const [field, info] of Object.entries(schema)) {
    out[field] = info.params ? { type: info.data_type, ...info.params } : info.data_type;
  }
  return out;
}

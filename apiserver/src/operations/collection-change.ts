/**
 * `PATCH /api/v1/collections/{collection_id}` on the control plane: moves a
 * vector collection to another workspace (or out of any), or changes its
 * regions, through the same operations as a workspace's region change: the
 * points are copied into the engine and under the name the collection will
 * have (collection-mover.ts), writes made meanwhile included, then served
 * from there, and the old copy dropped.
 *
 * The collection is named by its `id` (the `id` its vector-plane reads
 * carry), or by its name: `name` for one outside any workspace,
 * `workspace/name` (the slash encoded, `%2F`) for one in a workspace.
 */
import { randomUUID } from 'node:crypto';
import type { Collection } from 'mongodb';
import { keyAgentScope, type AuthContext } from '../auth/authenticate.js';
import {
  AgentKeyForbidden,
  CollectionNameTaken,
  CollectionNotFound,
  ServiceUnavailable,
} from '../errors/catalogue.js';
import {
  collectionId,
  collectionUuid,
  isServed,
  type VectorCollectionDoc,
} from '../vector/collections/model.js';
import { resolveRegions } from '../vector/collections/rules.js';
import {
  accepted,
  checkRegionChangeBudget,
  type RegionChangeAccepted,
  type RegionChangeNoOp,
} from '../workspaces/region-change.js';
import { sameRegions } from '../workspaces/workspace-regions.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import type { RegionOperationDoc } from './model.js';
import { lockKey, type OperationStore } from './operation-store.js';

/** CollectionUpdateRequest: what to change; a key left out is kept. */
export interface CollectionChange {
  regions?: string[];
  /** The workspace to move the collection to; null moves it out of any. */
  workspace_name?: string | null;
}

/** Region and workspace changes of collections. */
export class CollectionChangeService {
  constructor(
    private readonly deps: {
      collections: Collection<VectorCollectionDoc>;
      workspaces: Pick<WorkspaceService, 'resolve'>;
      regions: readonly string[];
      operations: OperationStore;
      started?: () => void;
      now?: () => number;
    },
  ) {}

  /** Answers a CollectionUpdateRequest for the collection `ref`. */
  async change(
    auth: AuthContext,
    ref: string,
    change: CollectionChange,
  ): Promise<RegionChangeNoOp | RegionChangeAccepted> {
    if (keyAgentScope(auth)) {
      throw new AgentKeyForbidden(
        "An agent's own key cannot move collections; use an account key.",
      );
    }
    const doc = await this.find(auth, ref);
    await this.deps.operations.assertFree(lockKey(auth.tenant, 'collection', doc._id));
    const toWorkspace =
      change.workspace_name === undefined
        ? doc.workspace
        : change.workspace_name === null
          ? null
          : (await this.deps.workspaces.resolve(auth, change.workspace_name)).spec.name;
    const toRegions =
      change.regions === undefined
        ? doc.regions
        : resolveRegions(
            [...new Set(change.regions)],
            auth.plan,
            this.deps.regions,
            doc.regions[0] ?? auth.account.homeRegion,
          );
    const moves = toWorkspace !== doc.workspace;
    if (!moves && sameRegions(toRegions, doc.regions)) {
      return {
        status: 'no_op',
        scope: 'collection',
        current_regions: doc.regions,
        ...(doc.workspace === null ? {} : { workspace_name: doc.workspace }),
      };
    }
    const now = this.deps.now?.() ?? Date.now();
    await checkRegionChangeBudget(auth, this.deps.operations, now);
    const at = new Date(now);
    const op: RegionOperationDoc = {
      _id: randomUUID(),
      accountId: auth.account._id,
      environment: auth.tenant.environment,
      scope: 'collection',
      workspaceId: null,
      workspaceName: doc.workspace,
      collection: {
        id: doc._id,
        name: doc.name,
        ...(moves ? { toWorkspace } : {}),
      },
      fromRegions: [...doc.regions],
      toRegions: [...toRegions],
      state: 'pending',
      agents: [],
      collections: [{ name: doc.name, collectionId: doc._id, state: 'pending', pointsCopied: 0 }],
      error: null,
      attempts: 0,
      createdAt: at,
      updatedAt: at,
      startedAt: null,
      finishedAt: null,
    };
    const keys = [lockKey(auth.tenant, 'collection', doc._id)];
    const target = moves
      ? collectionId(
          { accountId: doc.accountId, environment: doc.environment, workspace: toWorkspace },
          doc.name,
        )
      : null;
    if (target) {
      keys.push(lockKey(auth.tenant, 'collection', target));
      await this.reserve(op, doc, target, toWorkspace);
    }
    try {
      await this.deps.operations.accept(op, keys);
    } catch (err) {
      if (target) await this.deps.collections.deleteOne({ _id: target, incoming: op._id });
      throw err;
    }
    this.deps.started?.();
    return accepted(op);
  }

  /** The tenant's served collection `ref` (its id, `name` or `workspace/name`); 404 otherwise. */
  private async find(auth: AuthContext, ref: string): Promise<VectorCollectionDoc> {
    const tenant = { accountId: auth.account._id, environment: auth.tenant.environment };
    let docs: VectorCollectionDoc[];
    try {
      docs = await this.deps.collections.find(tenant).toArray();
    } catch (cause) {
      throw new ServiceUnavailable('The database is unreachable; retry in a few seconds.', {
        cause,
      });
    }
    const slash = ref.indexOf('/');
    const [workspace, name] =
      slash === -1 ? [null, ref] : [ref.slice(0, slash), ref.slice(slash + 1)];
    const doc = docs.find(
      (d) =>
        isServed(d) &&
        (collectionUuid(d._id) === ref.toLowerCase() ||
          (d.name === name && d.workspace === workspace)),
    );
    if (!doc) {
      throw new CollectionNotFound(`No collection ${ref}.`, { fields: { collection_id: ref } });
    }
    return doc;
  }

  /**
   * Reserves the collection's name in the workspace it moves to (a record
   * not served until the move switches to it); 409 COLLECTION_NAME_TAKEN
   * when that workspace has a collection of that name. A reservation whose
   * operation was never recorded (the process stopped between the two
   * writes) or has finished is taken over.
   */
  private async reserve(
    op: RegionOperationDoc,
    doc: VectorCollectionDoc,
    target: string,
    workspace: string | null,
  ): Promise<void> {
    const { lastChange: _last, move: _move, ...fields } = doc;
    const at = new Date();
    const reservation: VectorCollectionDoc = {
      ...fields,
      _id: target,
      workspace,
      status: 'creating',
      incoming: op._id,
      version: 1,
      createdAt: at,
      updatedAt: at,
    };
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.deps.collections.insertOne(reservation);
        return;
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) {
          throw new ServiceUnavailable('The database is unreachable; nothing was moved.', {
            cause: err,
          });
        }
      }
      const held = await this.deps.collections.findOne({ _id: target });
      const holder = held?.incoming ? await this.deps.operations.load(held.incoming) : undefined;
      const stale =
        held?.incoming &&
        (holder === null ||
          (holder && ['succeeded', 'failed', 'rolled_back'].includes(holder.state)));
      if (!stale) break;
      await this.deps.collections.deleteOne({ _id: target, incoming: held.incoming });
    }
    throw new CollectionNameTaken(
      `${workspace ? `Workspace ${workspace}` : 'The account'} already has a collection named ${doc.name}.`,
      { fields: { collection_name: doc.name, workspace } },
    );
  }
}

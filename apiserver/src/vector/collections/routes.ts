/**
 * Collection routes: create, list, get, the existence check, PATCH
 * description, delete, their workspace-scoped twins, `PUT
 * /collections/{name}` refused with 405 (the engine-native create), and
 * `GET /regions`.
 */
import type { Context } from 'koa';
import {
  CleanupInProgress,
  CollectionExistsInOtherRegion,
  CollectionInUse,
  CollectionLimitExceeded,
  CollectionNameTaken,
  CollectionNotFound,
  CollectionOwnershipMismatch,
  RegionChangeInProgress,
  CollectionRegionsEmpty,
  CollectionRegionsNotInScope,
  StarterRegionConsistency,
  VectorMethodNotAllowed,
  VectorValidationError,
} from '../../errors/catalogue.js';
import type { Engines } from '../engines.js';
import { resolveCollection, workspaceParam } from '../context.js';
import { readJsonObject } from '../json-body.js';
import { COLLECTION, ENGINE, JSON_BODY } from '../route-errors.js';
import { vectorRoute, type VectorRoute } from '../routing.js';
import type { SchemaService } from '../schema/service.js';
import { lifecycleOf, presentCollection } from './presenter.js';
import { parseCreate, validateName } from './rules.js';
import { refuseForeignEngineName, scopeOf, type CollectionService } from './service.js';

/** What the collection routes need. */
export interface CollectionRouteDeps {
  collections: CollectionService;
  engines: Engines;
  regions: readonly string[];
  /** Each region's public URL from the registry; a region without one is served from the request's origin. */
  regionUrls?: Readonly<Record<string, string | null>>;
  schemas: Pick<SchemaService, 'current'>;
}

/** The name of the route refusing the engine-native create: a method no `Allow` lists. */
export const NATIVE_CREATE = 'engine-native-create';

/** The collection routes, in the order they are mounted. */
export function collectionRoutes(deps: CollectionRouteDeps): VectorRoute[] {
  const { collections, engines } = deps;
  return [
    vectorRoute({
      method: 'post',
      path: '/api/v1/collections',
      workspaceTwin: true,
      summary: 'Create a collection {name, vectors:{size, distance}, description?, regions?}',
      success: {
        status: 201,
        description:
          '{result: collection, status}; 201 when created, 200 when it already existed with the same configuration.',
      },
      errors: [
        ...JSON_BODY,
        CollectionOwnershipMismatch,
        CollectionLimitExceeded,
        CollectionNameTaken,
        CollectionExistsInOtherRegion,
        CleanupInProgress,
        CollectionRegionsEmpty,
        CollectionRegionsNotInScope,
        StarterRegionConsistency,
        ...ENGINE,
      ],
      handler: async (ctx, caller) => {
        const input = parseCreate(await readJsonObject(ctx));
        refuseForeignEngineName(caller, input.name);
        const outcome = await collections.create(
          caller,
          scopeOf(caller, workspaceParam(ctx)),
          input,
        );
        ctx.status = outcome.created ? 201 : 200;
        ctx.body = { result: presentCollection(outcome.collection), status: 'ok' };
      },
    }),
    vectorRoute({
      method: 'get',
      path: '/api/v1/collections/:name',
      workspaceTwin: true,
      summary: 'Read a collection',
      success: {
        status: 200,
        description:
          "{result, schema_version}. result holds the contract's fields (name, vectors: {size, distance}, description, regions, created_at, updated_at, workspace in a workspace) and what the official Qdrant clients parse, from the engine: status (Qdrant's: green, yellow; grey while the collection is being created; red when the engine could not describe it), optimizer_status, segments_count, config (params.vectors = {size, distance}, hnsw_config, optimizer_config, wal_config, quantization_config), payload_schema, points_count and indexed_vectors_count. The lifecycle label the dashboard shows is lifecycle_status, also in the header X-Collection-Status: active; creating; provisioning_stalled (creating for more than 30 minutes); region_change_in_progress or workspace_move_in_progress while a region change (PATCH /api/v1/workspaces/{workspace}/regions or PATCH /api/v1/collections/{collection_id} on the control plane) moves it, when it is served from its old region and writes may be held for a few seconds at the switch; region_change_rolled_back after its last region change failed and was undone; DEGRADED when it is usable but not where it should be (its last region change failed part-way, or its points are in none of its regions). schema_version is the version of the payload schema in force (the number in its ETag), null when none; headers ETag, X-Collection-Source, X-Collection-Status.",
      },
      errors: COLLECTION,
      handler: async (ctx, caller) => {
        const doc = await resolveCollection(ctx, caller, collections);
        const [info, schema] = await Promise.all([
          engines
            .forDoc(doc)
            .engine.send('GET', `/collections/${doc.engineName}`)
            .catch(() => null),
          deps.schemas.current(doc),
        ]);
        let described: Record<string, unknown> | null = null;
        if (info && info.status === 200) {
          described =
            (JSON.parse(info.text) as { result?: Record<string, unknown> }).result ?? null;
        }
        ctx.set('ETag', `"${doc.version}"`);
        ctx.set('X-Collection-Source', 'metadata-store');
        ctx.set('X-Collection-Status', lifecycleOf(doc));
        ctx.body = {
          result: presentCollection(doc, described),
          // The version of the payload schema in force (the number in its ETag); null when none.
          schema_version: schema?.version ?? null,
        };
      },
    }),
    // Qdrant's existence check (`collection_exists`, `collectionExists`): no usage is recorded.
    vectorRoute({
      method: 'get',
      path: '/api/v1/collections/:name/exists',
      workspaceTwin: true,
      summary: "Whether the collection exists (Qdrant's collection_exists); records no use",
      success: { status: 200, description: '{result: {exists: boolean}, status}.' },
      errors: [CollectionOwnershipMismatch, VectorValidationError],
      handler: async (ctx, caller) => {
        const name = nameParam(ctx, caller);
        const exists = await collections
          .get(scopeOf(caller, workspaceParam(ctx)), name)
          .then(() => true, absentAsFalse);
        ctx.body = { result: { exists }, status: 'ok' };
      },
    }),
    vectorRoute({
      method: 'patch',
      path: '/api/v1/collections/:name',
      workspaceTwin: true,
      summary: 'Change the description (the only mutable field)',
      success: { status: 200, description: '{result: collection, status}; header ETag.' },
      errors: [...COLLECTION, ...JSON_BODY],
      handler: async (ctx, caller) => {
        const body = await readJsonObject(ctx);
        const other = Object.keys(body).find((key) => key !== 'description');
        if (other !== undefined) {
          throw new VectorValidationError(
            `${other} cannot be changed: description is the only mutable field.`,
            { fields: { field: other } },
          );
        }
        if (!('description' in body)) {
          throw new VectorValidationError('Send {description}.', {
            fields: { field: 'description' },
          });
        }
        const name = nameParam(ctx, caller);
        const doc = await collections.describe(
          scopeOf(caller, workspaceParam(ctx)),
          name,
          body.description,
        );
        ctx.set('ETag', `"${doc.version}"`);
        ctx.body = { result: presentCollection(doc), status: 'ok' };
      },
    }),
    vectorRoute({
      method: 'delete',
      path: '/api/v1/collections/:name',
      workspaceTwin: true,
      summary: 'Delete a collection and its points',
      success: {
        status: 200,
        description:
          "{result: true, status} when deleted; {result: false, status} when there was no such collection, as Qdrant answers (the official clients' recreate deletes first).",
      },
      errors: [
        CollectionOwnershipMismatch,
        VectorValidationError,
        CollectionInUse,
        CleanupInProgress,
        RegionChangeInProgress,
        ...ENGINE,
      ],
      handler: async (ctx, caller) => {
        const name = nameParam(ctx, caller);
        // As Qdrant answers: false when there was nothing to delete (clients' recreate relies on it).
        const deleted = await collections
          .delete(scopeOf(caller, workspaceParam(ctx)), name)
          .then(() => true, absentAsFalse);
        ctx.body = { result: deleted, status: 'ok' };
      },
    }),
    // The engine-native create; refused before authentication, as it is for everyone.
    vectorRoute({
      method: 'put',
      path: '/api/v1/collections/:name',
      workspaceTwin: true,
      layerName: NATIVE_CREATE,
      authenticated: false,
      summary: 'Engine-native create: not supported; use POST /api/v1/collections',
      success: { status: 405, description: 'Always 405 METHOD_NOT_ALLOWED.' },
      errors: [VectorMethodNotAllowed],
      handler: () => {
        throw new VectorMethodNotAllowed(
          'PUT /collections/{name} is not supported; create with POST /api/v1/collections.',
          { headers: { Allow: 'HEAD, GET, PATCH, DELETE' } },
        );
      },
    }),
    vectorRoute({
      method: 'get',
      path: '/api/v1/collections',
      summary: "List the account's collections (workspace ones carry `workspace`)",
      success: { status: 200, description: '{result: {collections: [collection]}, status}.' },
      errors: [],
      handler: async (ctx, caller) => {
        const docs = await collections.list(scopeOf(caller, null));
        ctx.body = { result: { collections: docs.map((d) => presentCollection(d)) }, status: 'ok' };
      },
    }),
    vectorRoute({
      method: 'get',
      path: '/api/v1/regions',
      summary: 'Map of region to regional URL',
      success: { status: 200, description: '{result: {region: url}, status}.' },
      errors: [],
      handler: (ctx) => {
        // A region the registry gives no public URL is served from this origin.
        ctx.body = {
          result: Object.fromEntries(
            deps.regions.map((region) => [
              region,
              deps.regionUrls?.[region] ?? `${ctx.protocol}://${ctx.host}`,
            ]),
          ),
          status: 'ok',
        };
      },
    }),
  ];
}

/** False for a collection that does not exist; any other failure is rethrown. */
function absentAsFalse(err: unknown): false {
  if (err instanceof CollectionNotFound) return false;
  throw err;
}

function nameParam(ctx: Context, caller: Parameters<typeof refuseForeignEngineName>[0]): string {
  const name = (ctx.params as Record<string, string>).name!;
  refuseForeignEngineName(caller, name);
  return validateName(name);
}

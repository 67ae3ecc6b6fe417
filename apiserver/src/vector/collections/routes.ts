/**
 * Collection routes: create, list, get, the existence check, PATCH
 * description, delete, their workspace-scoped twins, `PUT
 * /collections/{name}` refused with 405 (the engine-native create), and
 * `GET /regions`.
 */
import type { Context } from 'koa';
import {
  CollectionNotFound,
  VectorMethodNotAllowed,
  VectorValidationError,
} from '../../errors/catalogue.js';
import type { EngineClient } from '../engine-client.js';
import { authed, resolveCollection, workspaceParam, type VectorRouter } from '../context.js';
import type { VectorGuard } from '../guards.js';
import { readJsonObject } from '../json-body.js';
import type { SchemaService } from '../schema/service.js';
import { presentCollection } from './presenter.js';
import { parseCreate, validateName } from './rules.js';
import { refuseForeignEngineName, scopeOf, type CollectionService } from './service.js';

/** What the collection routes need. */
export interface CollectionRouteDeps {
  guard: VectorGuard;
  collections: CollectionService;
  engine: EngineClient;
  regions: readonly string[];
  schemas: Pick<SchemaService, 'current'>;
}

const PREFIXES = ['/api/v1', '/api/v1/workspaces/:workspace'];

/** The name of the route refusing the engine-native create: a method no `Allow` lists. */
export const NATIVE_CREATE = 'engine-native-create';

/** Mounts the collection routes (and their workspace twins) on `router`. */
export function mountCollectionRoutes(router: VectorRouter, deps: CollectionRouteDeps): void {
  const { guard, collections, engine } = deps;

  for (const prefix of PREFIXES) {
    router.post(
      `${prefix}/collections`,
      authed(guard, async (ctx, caller) => {
        const input = parseCreate(await readJsonObject(ctx));
        refuseForeignEngineName(caller, input.name);
        const outcome = await collections.create(
          caller,
          scopeOf(caller, workspaceParam(ctx)),
          input,
        );
        ctx.status = outcome.created ? 201 : 200;
        ctx.body = { result: presentCollection(outcome.collection), status: 'ok' };
      }),
    );

    router.get(
      `${prefix}/collections/:name`,
      authed(guard, async (ctx, caller) => {
        const doc = await resolveCollection(ctx, caller, collections);
        const [info, schema] = await Promise.all([
          engine.send('GET', `/collections/${doc.engineName}`).catch(() => null),
          deps.schemas.current(doc),
        ]);
        let described: Record<string, unknown> | null = null;
        if (info && info.status === 200) {
          described =
            (JSON.parse(info.text) as { result?: Record<string, unknown> }).result ?? null;
        }
        ctx.set('ETag', `"${doc.version}"`);
        ctx.set('X-Collection-Source', 'metadata-store');
        ctx.set('X-Collection-Status', doc.status);
        ctx.body = {
          result: presentCollection(doc, described),
          // The version of the payload schema in force (the number in its ETag); null when none.
          schema_version: schema?.version ?? null,
        };
      }),
    );

    // Qdrant's existence check (`collection_exists`, `collectionExists`): no usage is recorded.
    router.get(
      `${prefix}/collections/:name/exists`,
      authed(guard, async (ctx, caller) => {
        const name = nameParam(ctx, caller);
        const exists = await collections
          .get(scopeOf(caller, workspaceParam(ctx)), name)
          .then(() => true, absentAsFalse);
        ctx.body = { result: { exists }, status: 'ok' };
      }),
    );

    router.patch(
      `${prefix}/collections/:name`,
      authed(guard, async (ctx, caller) => {
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
      }),
    );

    router.delete(
      `${prefix}/collections/:name`,
      authed(guard, async (ctx, caller) => {
        const name = nameParam(ctx, caller);
        // As Qdrant answers: false when there was nothing to delete (clients' recreate relies on it).
        const deleted = await collections
          .delete(scopeOf(caller, workspaceParam(ctx)), name)
          .then(() => true, absentAsFalse);
        ctx.body = { result: deleted, status: 'ok' };
      }),
    );

    // The engine-native create; refused before authentication, as it is for everyone.
    router.put(NATIVE_CREATE, `${prefix}/collections/:name`, () => {
      throw new VectorMethodNotAllowed(
        'PUT /collections/{name} is not supported; create with POST /api/v1/collections.',
        { headers: { Allow: 'HEAD, GET, PATCH, DELETE' } },
      );
    });
  }

  router.get(
    '/api/v1/collections',
    authed(guard, async (ctx, caller) => {
      const docs = await collections.list(scopeOf(caller, null));
      ctx.body = { result: { collections: docs.map((d) => presentCollection(d)) }, status: 'ok' };
    }),
  );

  router.get(
    '/api/v1/regions',
    authed(guard, async (ctx) => {
      // One installation serves every region it offers from this origin.
      ctx.body = {
        result: Object.fromEntries(
          deps.regions.map((region) => [region, `${ctx.protocol}://${ctx.host}`]),
        ),
        status: 'ok',
      };
    }),
  );
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

/** What the vector routes share: state, the router type, and the collection a request names. */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { AuthContext } from '../auth/authenticate.js';
import { VectorValidationError } from '../errors/catalogue.js';
import type { RequestState } from '../middleware/request-context.js';
import { WORKSPACE_NAME, type VectorCollectionDoc } from './collections/model.js';
import { validateName } from './collections/rules.js';
import { refuseForeignEngineName, scopeOf, type CollectionService } from './collections/service.js';

/** Koa state on the vector plane. */
export type VectorState = RequestState;

/** The router type of the vector plane. */
export type VectorRouter = Router<VectorState>;

/** The workspace of a workspace-scoped route, or null. */
export function workspaceParam(ctx: Context): string | null {
  return checkedWorkspace((ctx.params as Record<string, string | undefined>).workspace);
}

/** A route's `workspace` parameter checked (400 unless a workspace name), or null without one. */
export function checkedWorkspace(workspace: string | undefined): string | null {
  if (workspace === undefined) return null;
  if (!WORKSPACE_NAME.test(workspace)) {
    throw new VectorValidationError('workspace must be a workspace name ([a-z0-9-]).', {
      fields: { field: 'workspace' },
    });
  }
  return workspace;
}

/**
 * The collection the path names, for this caller: 403 for another account's
 * engine name, 400 for a malformed name, 404 COLLECTION_NOT_FOUND for one the
 * caller does not have. Records the use when the key belongs to an agent.
 */
export async function resolveCollection(
  ctx: Context,
  caller: AuthContext,
  collections: CollectionService,
  /** The path parameter naming the collection (`collection` on the schema routes). */
  param = 'name',
): Promise<VectorCollectionDoc> {
  const params = ctx.params as Record<string, string>;
  return resolveNamed(caller, collections, params.workspace, params[param]!);
}

/** {@link resolveCollection} given the route's parameters rather than a Koa context. */
export async function resolveNamed(
  caller: AuthContext,
  collections: CollectionService,
  workspace: string | undefined,
  name: string,
): Promise<VectorCollectionDoc> {
  refuseForeignEngineName(caller, name);
  validateName(name);
  const doc = await collections.get(scopeOf(caller, checkedWorkspace(workspace)), name);
  await collections.recordUsage(caller, doc);
  return doc;
}

/**
 * Every route of the vector plane, declared once (routing.ts), in the order
 * they are mounted: collections, points, payload schemas, and the document
 * generated from all of them.
 */
import { collectionRoutes, type CollectionRouteDeps } from './collections/routes.js';
import { vectorOpenApi } from './openapi.js';
import { pointRoutes, type PointRouteDeps } from './points/routes.js';
import { vectorRoute, type VectorRoute } from './routing.js';
import { schemaRoutes, type SchemaRouteDeps } from './schema/routes.js';

/** What the vector plane's routes need. */
export type VectorRouteDeps = CollectionRouteDeps & PointRouteDeps & SchemaRouteDeps;

/** The vector plane's route declarations, the OpenAPI document's own route last. */
export function vectorRoutes(deps: VectorRouteDeps): VectorRoute[] {
  const routes = [...collectionRoutes(deps), ...pointRoutes(deps), ...schemaRoutes(deps)];
  let document: Record<string, unknown> | undefined;
  routes.push(
    vectorRoute({
      method: 'get',
      path: '/api/v1/openapi.json',
      authenticated: false,
      summary: 'This document',
      success: { status: 200, description: 'OpenAPI 3.1 document.' },
      errors: [],
      handler: (ctx) => {
        ctx.body = document ??= vectorOpenApi(routes);
      },
    }),
  );
  return routes;
}

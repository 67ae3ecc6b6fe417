/**
 * What a route of any front door states about itself, once, as data: its
 * method and path, what it is for, whether it authenticates, and the
 * catalogue errors it can answer. Each front door extends it with how it
 * validates and answers (the control plane's yup schemas, the vector plane's
 * workspace twins and node:http fast path), mounts its routes from the
 * declarations and generates its OpenAPI document from the same ones, so
 * what is served and what is documented cannot drift apart. Each keeps its
 * own error envelope.
 */
import type { ErrorClass } from '../errors/catalogue.js';

/** The HTTP methods a declared route takes (HEAD comes with GET). */
export type RouteMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The part of a route declaration every front door shares. */
export interface DeclaredRoute {
  method: RouteMethod;
  /** Koa path, e.g. `/api/v1/agents/:agent`. */
  path: string;
  summary: string;
  description?: string;
  /** False for routes answered before authentication (health probes, the document itself). */
  authenticated?: boolean;
  /** Catalogue errors the route answers besides those its front door adds to every route. */
  errors: readonly ErrorClass[];
}

/** A Koa path in OpenAPI's form: `/collections/:name` is `/collections/{name}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

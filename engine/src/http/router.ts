/**
 * A small method-and-path router: patterns like `/collections/{name}/points/{id}`,
 * matched segment by segment, parameters URL-decoded. Literal routes win over
 * parameters, so `/points/search` is never read as the point `search`.
 */

/** What a handler receives. */
export interface RouteContext {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

/** A route handler; resolves with the `result` of Qdrant's envelope. */
export type Handler = (context: RouteContext) => unknown;

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
  literals: number;
}

/** The route table. */
export class Router {
  private readonly routes: Route[] = [];

  /** Adds a route. */
  on(method: string, pattern: string, handler: Handler): this {
    const segments = pattern.split('/').filter(Boolean);
    const literals = segments.filter((s) => !s.startsWith('{')).length;
    this.routes.push({ method, segments, handler, literals });
    this.routes.sort((a, b) => b.literals - a.literals);
    return this;
  }

  /** The handler and parameters for a request, `405` when only the method differs, or undefined. */
  match(
    method: string,
    path: string,
  ): { handler: Handler; params: Record<string, string> } | 'method' | undefined {
    const parts = path.split('/').filter(Boolean);
    let methodMismatch = false;
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const segment = route.segments[i]!;
        if (segment.startsWith('{')) {
          try {
            params[segment.slice(1, -1)] = decodeURIComponent(parts[i]!);
          } catch {
            ok = false;
          }
        } else ok = segment === parts[i];
      }
      if (!ok) continue;
      if (route.method !== method) {
        methodMismatch = true;
        continue;
      }
      return { handler: route.handler, params };
    }
    return methodMismatch ? 'method' : undefined;
  }
}

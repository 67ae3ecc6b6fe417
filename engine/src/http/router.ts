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
  /** As added, e.g. `/collections/{name}/points/{id}` (the metrics' route label). */
  pattern: string;
  handler: Handler;
  literals: number;
  /** The literal segments by position (undefined where a parameter stands). */
  segments: (string | undefined)[];
  /** Positions and names of the parameters. */
  params: [number, string][];
}

/** The route table. */
export class Router {
  /** Routes by their number of segments (only those can match a path), most literals first. */
  private readonly bySegments = new Map<number, Route[]>();

  /** Adds a route. */
  on(method: string, pattern: string, handler: Handler): this {
    const parts = pattern.split('/').filter(Boolean);
    const segments = parts.map((s) => (s.startsWith('{') ? undefined : s));
    const params = parts.flatMap((s, i): [number, string][] =>
      s.startsWith('{') ? [[i, s.slice(1, -1)]] : [],
    );
    const literals = parts.length - params.length;
    const routes = this.bySegments.get(parts.length) ?? [];
    routes.push({ method, pattern, handler, literals, segments, params });
    // A stable sort: among routes with as many literals, the first added wins.
    routes.sort((a, b) => b.literals - a.literals);
    this.bySegments.set(parts.length, routes);
    return this;
  }

  /** The handler and parameters for a request, `405` when only the method differs, or undefined. */
  match(
    method: string,
    path: string,
  ): { handler: Handler; pattern: string; params: Record<string, string> } | 'method' | undefined {
    const parts = path.split('/').filter(Boolean);
    let methodMismatch = false;
    for (const route of this.bySegments.get(parts.length) ?? []) {
      if (!literalsMatch(route, parts)) continue;
      const params = decodeParams(route, parts);
      if (params === undefined) continue;
      if (route.method !== method) {
        methodMismatch = true;
        continue;
      }
      return { handler: route.handler, pattern: route.pattern, params };
    }
    return methodMismatch ? 'method' : undefined;
  }
}

function literalsMatch(route: Route, parts: string[]): boolean {
  const { segments } = route;
  for (let i = 0; i < segments.length; i++) {
    const literal = segments[i];
    if (literal !== undefined && literal !== parts[i]) return false;
  }
  return true;
}

/** The route's parameters URL-decoded, or undefined when one does not decode. */
function decodeParams(route: Route, parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const [at, name] of route.params) {
    try {
      params[name] = decodeURIComponent(parts[at]!);
    } catch {
      return undefined;
    }
  }
  return params;
}

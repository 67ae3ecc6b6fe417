/**
 * @koa/router finds a request's routes by testing every route's regular
 * expression in turn: about a hundred tests (and as many debug calls) per
 * control-plane request, a tenth of what a cached read costs. This index
 * narrows the test to the routes that can match: a route whose template starts
 * with up to three literal segments (`/api/v1/agents/:agent` starts with
 * `api/v1/agents`), each of the rest literal or one parameter, can only match a
 * path with as many segments that starts with the same three, compared without
 * case as the router does; every other route is tested for every path. The
 * router's own `match` still decides, over those routes in their declared
 * order, so which route answers, its params and the 405 logic that reads
 * `match` are exactly as before.
 */
import type Router from '@koa/router';

/** Leading literal segments a route is filed under. */
const KEY_SEGMENTS = 3;
/** A segment that is one named parameter, which matches exactly one non-empty segment. */
const PARAM = /^:[A-Za-z_][A-Za-z0-9_]*$/;
/** Characters that make a segment something other than literal text. */
const PATTERN = /[:*?(){}\\+]/;

/**
 * The key a route template is filed under, or null when it must be tested for
 * every path: its first {@link KEY_SEGMENTS} segments (fewer when it has
 * fewer), lower-cased, and its number of segments; only for a template whose
 * leading segments are literal text and whose others are literal text or one
 * named parameter each.
 */
export function templateKey(template: string): string | null {
  if (template === '/') return '#0';
  if (!template.startsWith('/')) return null;
  const segments = template.slice(1).split('/');
  const simple = segments.every(
    (s, i) => s !== '' && (!PATTERN.test(s) || (i >= KEY_SEGMENTS && PARAM.test(s))),
  );
  if (!simple) return null;
  return `${segments.slice(0, KEY_SEGMENTS).join('/').toLowerCase()}#${segments.length}`;
}

/**
 * The key of a request path, as {@link templateKey} files the routes that can
 * match it: its first {@link KEY_SEGMENTS} segments, lower-cased, and its
 * number of segments, a single trailing `/` not counted (the router's routes
 * take an optional trailing slash).
 */
export function pathKey(path: string): string {
  const end = path.length > 1 && path.endsWith('/') ? path.length - 1 : path.length;
  let segments = end > 1 ? 1 : 0;
  let prefixEnd = end;
  for (let i = 1; i < end; i++) {
    if (path.charCodeAt(i) !== 47) continue;
    if (segments === KEY_SEGMENTS) prefixEnd = Math.min(prefixEnd, i);
    segments++;
  }
  return `${path.slice(1, prefixEnd).toLowerCase()}#${segments}`;
}

/**
 * Makes `router.match` test only the routes that can match a path (see the
 * module comment). Call once every route is mounted; routes added later would
 * not be found.
 */
export function indexRoutes<S, C>(router: Router<S, C>): Router<S, C> {
  const stack = [...router.stack];
  const keys = stack.map((layer) => templateKey(String(layer.path)));
  const everyPath = stack.filter((_, i) => keys[i] === null);
  // Each key's routes and the every-path routes, in the order they were declared.
  const byKey = new Map<string, typeof stack>();
  for (const key of new Set(keys))
    if (key !== null)
      byKey.set(
        key,
        stack.filter((_, i) => keys[i] === key || keys[i] === null),
      );
  const original = router.match.bind(router);
  router.match = (path: string, method: string) => {
    const all = router.stack;
    router.stack = byKey.get(pathKey(path)) ?? everyPath;
    try {
      return original(path, method);
    } finally {
      router.stack = all;
    }
  };
  return router;
}

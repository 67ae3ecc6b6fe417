import { describe, expect, it } from '@jest/globals';
import Router from '@koa/router';
import { declaredControlPlaneRoutes } from '../../../test/factories/control-plane-routes.js';
import { indexRoutes, pathKey, templateKey } from './route-index.js';

const real = declaredControlPlaneRoutes().map((r) => ({ method: r.method, path: r.path }));

// Shapes the control plane does not use today, so the index stays right if one is added.
const odd = [
  { method: 'get', path: '/' },
  { method: 'get', path: '/:anything' },
  { method: 'post', path: '/api/:version/things' },
  { method: 'get', path: '/api/v1/trailing/' },
  { method: 'get', path: '/api/v1/files/*rest' },
  { method: 'get', path: '/api/v1/agents/:agent/:part' },
  { method: 'delete', path: '/api/v1/agents/:agent' },
] as const;

function routerOf(routes: readonly { method: string; path: string }[]): Router {
  const router = new Router();
  for (const { method, path } of routes)
    (router as unknown as Record<string, (p: string, h: () => void) => void>)[method]!(
      path,
      () => {},
    );
  return router;
}

/** Request paths around a template: its params filled, case, trailing and doubled slashes, more segments. */
function pathsAround(template: string): string[] {
  const filled = template.replace(/:[a-z_]+/gi, 'x-1');
  return [
    filled,
    filled.toUpperCase(),
    `${filled}/`,
    `${filled}//`,
    `${filled}/more`,
    filled.replace('/', '//'),
    filled.replace(/\/([^/]*)$/, '/%2F$1'),
    filled.slice(0, -1),
  ];
}

const describeMatch = (m: ReturnType<Router['match']>) => ({
  route: m.route,
  path: m.path.map((l) => `${l.methods.join(',')} ${String(l.path)}`),
  pathAndMethod: m.pathAndMethod.map((l) => `${l.methods.join(',')} ${String(l.path)}`),
});

describe('indexRoutes', () => {
  it('matches exactly what the router matches without it, for every route and method', () => {
    const routes = [...real, ...odd];
    const plain = routerOf(routes);
    const indexed = indexRoutes(routerOf(routes));
    const paths = new Set([
      '/',
      '//',
      '',
      '/API',
      '/api/v1',
      '/api/v1/',
      ...routes.flatMap((r) => pathsAround(r.path)),
    ]);
    let matched = 0;
    for (const path of paths)
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE']) {
        const expected = describeMatch(plain.match(path, method));
        expect({
          request: `${method} ${path}`,
          ...describeMatch(indexed.match(path, method)),
        }).toEqual({ request: `${method} ${path}`, ...expected });
        if (expected.route) matched++;
      }
    // The comparison covered paths that do match, not only misses.
    expect(matched).toBeGreaterThan(real.length);
  });

  it('files a template under its leading literal segments and length, or under every path', () => {
    expect(templateKey('/api/v1/agents/:agent')).toBe('api/v1/agents#4');
    expect(templateKey('/API/V1/Agents')).toBe('api/v1/agents#3');
    expect(templateKey('/health')).toBe('health#1');
    expect(templateKey('/')).toBe('#0');
    expect(templateKey('/api/:v/agents')).toBeNull();
    expect(templateKey('/api/v1/files/*rest')).toBeNull();
    expect(templateKey('/api/v1/trailing/')).toBeNull();
  });

  it('keys a path by its leading segments and length, one trailing slash not counted', () => {
    expect(pathKey('/api/v1/agents/x/logs')).toBe('api/v1/agents#5');
    expect(pathKey('/API/v1/Agents')).toBe('api/v1/agents#3');
    expect(pathKey('/health/')).toBe('health#1');
    expect(pathKey('/health//')).toBe('health/#2');
    expect(pathKey('/')).toBe('#0');
  });
});

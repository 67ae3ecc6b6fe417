import { describe, expect, test } from '@jest/globals';
import { fastPathMatcher } from './fast-path.js';
import { declaredVectorRoutes } from './declared-routes.fixture.js';

const match = fastPathMatcher(declaredVectorRoutes());
const c = '/api/v1/collections/docs';
const w = '/api/v1/workspaces/team-a/collections/docs';
const prefix = '/api/v1/collections/:name';

describe('fastPathMatcher', () => {
  test.each([
    ['POST', `${c}/points/search`, '/points/search'],
    ['POST', `${c}/points/search/batch`, '/points/search/batch'],
    ['POST', `${c}/points/query`, '/points/query'],
    ['POST', `${c}/points/query/batch`, '/points/query/batch'],
    ['POST', `${c}/points/scroll`, '/points/scroll'],
    ['POST', `${c}/points/count`, '/points/count'],
    ['POST', `${c}/points`, '/points'],
    ['POST', `${c}/points/retrieve`, '/points/retrieve'],
    ['POST', `${c}/points/delete`, '/points/delete'],
    ['GET', `${c}/points/7`, '/points/:id'],
    ['PUT', `${c}/index`, '/index'],
    ['DELETE', `${c}/index/tag`, '/index/:field'],
    ['POST', `${w}/points/search`, '/points/search'],
    ['POST', `${c}/points/search/`, '/points/search'],
    ['POST', '/API/V1/COLLECTIONS/docs/POINTS/SEARCH', '/points/search'],
  ])('takes %s %s', (method, url, route) => {
    expect(match(method, url)?.route.path).toBe(`${prefix}${route}`);
  });

  test('decodes path parameters as the router does, and splits off the query', () => {
    expect(match('POST', `${w}/points/scroll?consistency=all&x=1`)).toEqual(
      expect.objectContaining({
        path: `${w}/points/scroll`,
        params: { workspace: 'team-a', name: 'docs' },
        querystring: 'consistency=all&x=1',
      }),
    );
    expect(match('GET', '/api/v1/collections/a%20b/points/x%2Fy')?.params).toEqual({
      name: 'a b',
      id: 'x/y',
    });
    expect(match('GET', '/api/v1/collections/a%E0/points/1')?.params.name).toBe('a%E0');
  });

  test('reads bodies with the limit its routes declare', () => {
    expect(match('POST', `${c}/points/search`)?.route.maxBodyBytes).toBe(32 * 1024 * 1024);
    expect(match('GET', `${c}/points/7`)?.route.maxBodyBytes).toBeUndefined();
  });

  test.each([
    ['upserts, which stream', 'PUT', `${c}/points`],
    ['payload writes, which are checked and stamped', 'POST', `${c}/points/payload`],
    ['payload overwrites', 'PUT', `${c}/points/payload`],
    ['payload key deletes, which re-stamp', 'POST', `${c}/points/payload/delete`],
    ['payload clears', 'POST', `${c}/points/payload/clear`],
    ['vector updates', 'PUT', `${c}/points/vectors`],
    ['HEAD of a GET route', 'HEAD', `${c}/points/7`],
    ['another method', 'PATCH', `${c}/points/search`],
    ['unsupported endpoints', 'POST', `${c}/points/shards`],
    ['collection routes', 'GET', c],
    ['schema routes', 'GET', '/api/v1/schema/docs'],
    ['a URL in absolute form', 'POST', `http://host${c}/points/search`],
  ])('leaves %s to Koa', (_, method, url) => {
    expect(match(method, url)).toBeNull();
  });
});

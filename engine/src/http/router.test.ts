import { describe, expect, it } from '@jest/globals';
import { Router } from './router.js';
import type { Handler } from './router.js';

function table() {
  const named =
    (name: string): Handler =>
    () =>
      name;
  return new Router()
    .on('GET', '/collections/{name}/points/{id}', named('point'))
    .on('POST', '/collections/{name}/points/search', named('search'))
    .on('POST', '/collections/{name}/points/{id}', named('other'))
    .on('PUT', '/collections/{name}', named('create'));
}

function answer(router: Router, method: string, path: string) {
  const found = router.match(method, path);
  if (found === undefined || found === 'method') return found;
  return {
    route: found.handler({ params: found.params, query: new URLSearchParams(), body: 0 }),
    params: found.params,
  };
}

describe('Router', () => {
  it('prefers a literal segment to a parameter, whichever was added first', () => {
    expect(answer(table(), 'POST', '/collections/a/points/search')).toEqual({
      route: 'search',
      params: { name: 'a' },
    });
    expect(answer(table(), 'POST', '/collections/a/points/7')).toEqual({
      route: 'other',
      params: { name: 'a', id: '7' },
    });
  });

  it('URL-decodes parameters, and does not match a segment that does not decode', () => {
    expect(answer(table(), 'GET', '/collections/my%20c/points/x%2Fy')).toEqual({
      route: 'point',
      params: { name: 'my c', id: 'x/y' },
    });
    expect(answer(table(), 'GET', '/collections/%E0%A4%A/points/1')).toBeUndefined();
    // Only a route whose parameters decode tells that the method is wrong.
    expect(answer(table(), 'DELETE', '/collections/%E0%A4%A')).toBeUndefined();
  });

  it('answers "method" when only the method differs, undefined when no path matches', () => {
    expect(answer(table(), 'DELETE', '/collections/a')).toBe('method');
    expect(answer(table(), 'GET', '/collections/a/points/search')).toEqual({
      route: 'point',
      params: { name: 'a', id: 'search' },
    });
    expect(answer(table(), 'GET', '/collections')).toBeUndefined();
    expect(answer(table(), 'GET', '/collections/a/b/c/d/e')).toBeUndefined();
  });
});

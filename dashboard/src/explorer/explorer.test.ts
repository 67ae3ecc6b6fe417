import { describe, expect, it } from '@jest/globals';
import { currentStart, firstPage, nextPage, pageNumber, previousPage, withNext } from './paging.js';
import { payloadTree } from './payload-tree.js';
import { nearestQuery, parseFilter, parseQueryInput } from './query-input.js';

describe('paging', () => {
  it('walks forward by next_page_offset and back to each start', () => {
    let s = withNext(firstPage(), 50);
    expect(currentStart(s)).toBeNull();
    s = nextPage(s);
    expect([pageNumber(s), currentStart(s)]).toEqual([2, 50]);
    s = nextPage(withNext(s, 'a-uuid'));
    expect([pageNumber(s), currentStart(s)]).toEqual([3, 'a-uuid']);
    expect(nextPage(withNext(s, null))).toEqual(withNext(s, null));
    s = previousPage(s);
    expect([pageNumber(s), currentStart(s)]).toEqual([2, 50]);
    expect(previousPage(previousPage(s))).toEqual(firstPage());
  });
});

describe('payloadTree', () => {
  it('makes branches of objects and arrays and JSON-like leaves', () => {
    const tree = payloadTree({ name: 'a', tags: ['x', 1], meta: { ok: true, none: null } });
    expect(tree.text).toBe('{3}');
    expect(tree.children.map((c) => [c.key, c.kind, c.text])).toEqual([
      ['name', 'string', '"a"'],
      ['tags', 'array', '[2]'],
      ['meta', 'object', '{2}'],
    ]);
    expect(tree.children[2]!.children.map((c) => c.text)).toEqual(['true', 'null']);
  });

  it('cuts long strings', () => {
    expect(payloadTree('y'.repeat(500)).text.length).toBeLessThan(210);
  });
});

describe('parseQueryInput', () => {
  it('reads integer and UUID ids', () => {
    expect(parseQueryInput(' 17 ', 3)).toEqual({ kind: 'id', id: 17 });
    const uuid = '5C56C793-69F3-4FBF-87E6-C4BF54C28C26';
    expect(parseQueryInput(uuid, 3)).toEqual({ kind: 'id', id: uuid.toLowerCase() });
  });

  it('reads a pasted vector as JSON or separated numbers, checking its size', () => {
    expect(parseQueryInput('[0.1, 0.2, 0.3]', 3)).toEqual({
      kind: 'vector',
      vector: [0.1, 0.2, 0.3],
    });
    expect(parseQueryInput('1 2 3', 3)).toEqual({ kind: 'vector', vector: [1, 2, 3] });
    expect(parseQueryInput('[1, 2]', 3)).toMatchObject({ kind: 'invalid' });
    expect(parseQueryInput('abc', 3)).toMatchObject({ kind: 'invalid' });
  });

  it('builds the nearest-50 body', () => {
    expect(nearestQuery({ kind: 'id', id: 4 }, null)).toEqual({
      query: 4,
      limit: 50,
      with_payload: true,
    });
    expect(nearestQuery({ kind: 'vector', vector: [1] }, { must: [] })).toMatchObject({
      filter: { must: [] },
    });
  });

  it('reads filters', () => {
    expect(parseFilter('')).toEqual({ filter: null });
    expect(parseFilter('{"must":[]}')).toEqual({ filter: { must: [] } });
    expect(parseFilter('[1]')).toHaveProperty('error');
    expect(parseFilter('{')).toHaveProperty('error');
  });
});

import { expect, test } from '@jest/globals';
import { TwoHopLists } from './two-hop-lists.js';

/** Bits with the listed slots set. */
function bits(capacity: number, slots: number[]): Uint32Array {
  const out = new Uint32Array((capacity + 31) >>> 5);
  for (const s of slots) out[s >>> 5]! |= 1 << (s & 31);
  return out;
}

// Level 0 with m0 = 3: node 0 links to 1 (passes), 2 (fails, leads to 4 and 5) and 3 (fails,
// leads only to failing slots).
const m0 = 3;
const links = Int32Array.from([1, 2, 3, 0, 0, 0, 4, 5, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
const counts = Uint8Array.from([3, 1, 3, 1, 0, 0, 0]);
const passing = bits(7, [0, 1, 4, 5]);

test("a node's list holds its passing neighbours and, for a failing one, the passing slots it leads to", () => {
  const lists = new TwoHopLists(7);
  const at = lists.build(0, links, counts, m0, passing, 1000);
  expect(at).toBe(0);
  expect(lists.offsets[0]).toBe(0);
  // Six entries: slot 1; slot 2 stepped over to 4, 5 and 0 (0 passes: the walk's marks skip
  // it); slot 3, which leads to no passing slot, left out.
  expect([...lists.data.subarray(at, at + 1 + lists.data[at]!)]).toEqual([6, 1, -3, 3, 4, 5, 0]);
  expect(lists.length).toBe(7);
  expect(lists.offsets[1]).toBe(-1);
});

test('a list that would pass the budget is not made, and the lists grow past their first memory', () => {
  const lists = new TwoHopLists(7);
  expect(lists.build(0, links, counts, m0, passing, 5)).toBe(-1);
  expect(lists.offsets[0]).toBe(-1);
  expect(lists.length).toBe(0);
  const many = new TwoHopLists(7);
  for (let i = 0; i < 300; i++) {
    many.offsets[0] = -1;
    expect(many.build(0, links, counts, m0, passing, 1e6)).toBe(i * 7);
  }
  expect(many.data.length).toBeGreaterThanOrEqual(300 * 7);
  expect([...many.data.subarray(299 * 7, 300 * 7)]).toEqual([6, 1, -3, 3, 4, 5, 0]);
});

test('a walk takes the unvisited slots of a list, skipping a failing neighbour it has stepped over', () => {
  const lists = new TwoHopLists(7);
  const at = lists.build(0, links, counts, m0, passing, 1000);
  const visited = new Uint8Array(7);
  const out = new Int32Array(8);
  visited[0] = 5; // the node expanded
  expect(lists.unvisited(at, visited, 5, out)).toBe(3);
  expect([...out.subarray(0, 3)]).toEqual([1, 4, 5]);
  // The failing neighbour 2 and the slots it led to are marked, as the walk over links marks them.
  expect([...visited]).toEqual([5, 5, 5, 0, 5, 5, 0]);
  expect(lists.unvisited(at, visited, 5, out)).toBe(0);
  // Under a new mark, slot 2 stepped over already: none of the slots it leads to are taken.
  visited.fill(0);
  visited[2] = 6;
  expect(lists.unvisited(at, visited, 6, out)).toBe(1);
  expect(out[0]).toBe(1);
  // At most `max`.
  expect(lists.unvisited(at, new Uint8Array(7), 7, out, 2)).toBe(2);
  expect([...out.subarray(0, 2)]).toEqual([1, 4]);
});

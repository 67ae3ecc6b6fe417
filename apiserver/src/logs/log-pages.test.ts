import { describe, expect, it } from '@jest/globals';
import { lineId, type ChunkLine } from './log-chunks.js';
import {
  MAX_CHUNKS_PER_PAGE,
  memoized,
  readBackward,
  readForward,
  type ChunkSource,
} from './log-pages.js';

const line = (message: string, stream: ChunkLine['stream'] = 'stdout'): ChunkLine => ({
  timestamp: new Date(0),
  stream,
  level: 'INFO',
  message,
  deploymentId: null,
});

/** Chunks first..first+n-1 in memory, counting lookups. */
function source(chunks: string[][], first = 1): ChunkSource & { lookups: number } {
  const src = {
    lookups: 0,
    chunk: async (n: number) => {
      src.lookups += 1;
      const lines = chunks[n - first];
      return n >= first && lines
        ? lines.map((m) => line(m, m.startsWith('!') ? 'stderr' : 'stdout'))
        : null;
    },
    first: async () => first,
    last: async () => first + chunks.length - 1,
  };
  return src;
}
const all = () => true;
const errors = (l: ChunkLine) => l.stream === 'stderr';
const messages = (page: { items: { message: string }[] }) => page.items.map((i) => i.message);

describe('readForward', () => {
  it('reads across chunks from a cursor in the middle of one', async () => {
    const src = source([['a', 'b'], ['c'], ['d', 'e']]);
    const page = await readForward(src, lineId(1, 0), 3, all);
    expect(messages(page)).toEqual(['b', 'c', 'd']);
    expect(page).toMatchObject({
      nextAfterId: lineId(3, 0),
      nextBeforeId: lineId(1, 1),
      hasMore: true,
    });
    const rest = await readForward(src, page.nextAfterId, 3, all);
    expect(messages(rest)).toEqual(['e']);
    expect(rest).toMatchObject({ nextAfterId: lineId(3, 1), hasMore: false });
  });

  it('starts at the oldest chunk retention kept when the cursor points before it', async () => {
    const src = source([['c'], ['d']], 5);
    const page = await readForward(src, 0, 10, all);
    expect(messages(page)).toEqual(['c', 'd']);
    expect(page.nextBeforeId).toBeNull();
  });

  it('keeps the cursor on an empty read past the newest line', async () => {
    const src = source([['a']]);
    const page = await readForward(src, lineId(1, 0), 10, all);
    expect(page).toEqual({
      items: [],
      nextAfterId: lineId(1, 0),
      nextBeforeId: lineId(1, 1),
      hasMore: false,
    });
  });

  it(`stops after ${MAX_CHUNKS_PER_PAGE} chunks with the cursor past what the filter left out`, async () => {
    const chunks = Array.from({ length: MAX_CHUNKS_PER_PAGE + 3 }, (_, i) => [`out ${i}`]);
    chunks.push(['!wanted']);
    const src = source(chunks);
    const page = await readForward(memoized(src), 0, 10, errors);
    expect(page).toMatchObject({
      items: [],
      hasMore: true,
      nextAfterId: lineId(MAX_CHUNKS_PER_PAGE, 0),
    });
    const next = await readForward(src, page.nextAfterId, 10, errors);
    expect(messages(next)).toEqual(['!wanted']);
    expect(next.hasMore).toBe(false);
  });
});

describe('readBackward', () => {
  it('reads the newest lines without a cursor, oldest first, and pages back', async () => {
    const src = source([['a', 'b'], ['c'], ['d', 'e']]);
    const page = await readBackward(src, undefined, 2, all);
    expect(messages(page)).toEqual(['d', 'e']);
    expect(page).toMatchObject({
      nextBeforeId: lineId(3, 0),
      nextAfterId: lineId(3, 1),
      hasMore: true,
    });
    const older = await readBackward(src, page.nextBeforeId!, 5, all);
    expect(messages(older)).toEqual(['a', 'b', 'c']);
    expect(older).toMatchObject({ nextBeforeId: null, hasMore: false });
  });

  it('reads from the newest line when the cursor lies past it', async () => {
    const src = source([['a'], ['b']]);
    expect(messages(await readBackward(src, lineId(9, 0), 5, all))).toEqual(['a', 'b']);
  });

  it(`stops after ${MAX_CHUNKS_PER_PAGE} chunks and goes on from the lowest line it examined`, async () => {
    const chunks = [
      ['!old'],
      ...Array.from({ length: MAX_CHUNKS_PER_PAGE + 3 }, (_, i) => [`out ${i}`]),
    ];
    const src = source(chunks);
    const page = await readBackward(src, undefined, 10, errors);
    expect(page).toMatchObject({ items: [], hasMore: true });
    const next = await readBackward(src, page.nextBeforeId!, 10, errors);
    expect(messages(next)).toEqual(['!old']);
    expect(next).toMatchObject({ hasMore: false, nextBeforeId: null });
  });
});

describe('a limit above the chunk bound', () => {
  it('fills the page when every chunk holds one line, looking up little past the end', async () => {
    const chunks = Array.from({ length: 150 }, (_, i) => [`n${i}`]);
    const src = source(chunks);
    const forward = await readForward(src, 0, 120, all);
    expect(forward.items).toHaveLength(120);
    expect(forward.hasMore).toBe(true);
    const backward = await readBackward(src, undefined, 120, all);
    expect(messages(backward)).toEqual(chunks.slice(30).map(([m]) => m));
    const tail = source(chunks);
    const followed = await readForward(tail, lineId(150, 0), 120, all);
    expect(followed.items).toEqual([]);
    expect(tail.lookups).toBeLessThanOrEqual(3);
  });
});

describe('memoized', () => {
  it('looks each chunk up once and never looks up chunk 0', async () => {
    const src = source([['a'], ['b']]);
    const memo = memoized(src);
    await memo.chunk(1);
    await memo.chunk(1);
    await memo.chunk(0);
    expect(src.lookups).toBe(1);
  });
});

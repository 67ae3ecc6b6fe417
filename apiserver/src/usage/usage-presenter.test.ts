import { describe, expect, it } from '@jest/globals';
import { decodeCursor, encodeCursor } from './usage-presenter.js';

describe('usage cursors', () => {
  it('round-trip a position', () => {
    const position = { at: new Date('2026-05-01T00:00:01.250Z'), id: 'compute:run:abc-1' };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
  });

  it('refuse what this server did not make', () => {
    for (const cursor of ['', 'bm9wZQ', Buffer.from('12|a b').toString('base64url')])
      expect(decodeCursor(cursor)).toBeNull();
  });
});

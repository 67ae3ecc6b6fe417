import { expect, test } from '@jest/globals';
import { MAX_RECORD_DEPTH, decodeRecord, encodeRecord } from './record-codec.js';

/** A record body whose JSON header is `header`, with no vectors. */
function body(header: string): Buffer {
  const json = Buffer.from(header);
  const out = Buffer.alloc(4 + json.length);
  out.writeUInt32LE(json.length, 0);
  json.copy(out, 4);
  return out;
}

const deepMerge = (levels: number) =>
  `{"seq":2,"op":{"type":"set_payload","selector":{"ids":[1]},"payload":` +
  `${'{"d":'.repeat(levels)}1${'}'.repeat(levels)}}}`;

test('an upsert comes back with its vectors bit for bit', () => {
  const vector = new Float32Array([0.1, -2.5e-38, 3.4e38]);
  const encoded = encodeRecord(7, { type: 'upsert', points: [{ id: 1, vector, payload: null }] });
  expect(decodeRecord(encoded, 3)).toEqual({
    seq: 7,
    op: { type: 'upsert', points: [{ id: 1, vector, payload: null }] },
  });
});

test('a record from before the depth limit replays up to a thousand levels, and no deeper', () => {
  const levels = MAX_RECORD_DEPTH - 2; // the header's own two levels, then the payload's
  expect(decodeRecord(body(deepMerge(levels)), 2).seq).toBe(2);
  expect(() => decodeRecord(body(deepMerge(levels + 1)), 2)).toThrow(
    /^record nests deeper than 1000 levels \(at byte \d+\)$/,
  );
});

test('a record that does not hold what its header says is refused', () => {
  expect(() => decodeRecord(body('{"seq": oops'), 2)).toThrow(SyntaxError);
  expect(() => decodeRecord(body('{"op":{"type":"clear_payload"}}'), 2)).toThrow(
    'record header has no sequence number or operation type',
  );
  const short = Buffer.concat([body('{"seq":1,"op":{"type":"upsert","points":[[1,null]]}}')]);
  expect(() => decodeRecord(short, 2)).toThrow('record holds 0 bytes of vectors for 1 of size 2');
  const overrun = Buffer.alloc(8);
  overrun.writeUInt32LE(100, 0);
  expect(() => decodeRecord(overrun, 2)).toThrow(/overruns/);
});

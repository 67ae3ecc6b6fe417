import { describe, expect, test } from '@jest/globals';
import { WriteCheck } from '../schema/enforcement.js';
import { BatchWriter } from './batch-writer.js';
import { stampOf, writeStampedPoint } from './stamped-point.js';

const record = { __svc_agent_id: 'agt_1', __svc_deployment_id: 'dep_1' };
const stamp = stampOf(record);

/** The forwarded point as JSON text, and whether it is the bytes as sent with the stamp spliced in. */
function forwarded(text: string): { text: string; spliced: boolean; payloadBytes: number } {
  const out = BatchWriter.acquire();
  const payloadBytes = writeStampedPoint(Buffer.from(text), 0, stamp, WriteCheck.none(), out);
  const written = out.bytes().toString();
  // Spliced: taking the stamp back out, the way it went in, gives the bytes as sent.
  const inserted = JSON.stringify(record).slice(1, -1);
  const spliced = [
    written.replace(`,"payload":{${inserted}}`, ''),
    written.replace(`,${inserted}`, ''),
    written.replace(`{${inserted}}`, 'null'),
    written.replace(inserted, ''),
  ].includes(text);
  return { text: written, spliced, payloadBytes };
}

describe('writeStampedPoint', () => {
  test.each([
    ['a payload with members', '{"id":1,"vector":[0.5, 1],"payload":{"a":1,"b":{"c":[2]}}}'],
    ['whitespace around everything', ' { "id" : 2 , "vector" : [1,2] , "payload" : { "a" : 1 } } '],
    ['an empty payload', '{"id":3,"vector":[1,2],"payload":{ }}'],
    ['a null payload', '{"id":4,"payload":null,"vector":[1,2]}'],
    ['no payload', '{"id":5,"vector":[1,2]}'],
    ['no payload and trailing whitespace', '{"id":6,"vector":[1,2]  }\n'],
    ['an escaped member name', '{"id":7,"vector":[1],"p\\u0061yload":{"a":1}}'],
    [
      'named vectors',
      '{"id":"5c56c793-69f3-4fbf-87e6-c4bf54c28c26","vector":{"t":[1]},"payload":{}}',
    ],
  ])('splices the stamp into %s, forwarding the rest as sent', (_, text) => {
    const out = forwarded(text);
    const sent = JSON.parse(text) as Record<string, unknown>;
    const payload = (sent.payload ?? {}) as Record<string, unknown>;
    expect(out.spliced).toBe(true);
    expect(JSON.parse(out.text)).toEqual({ ...sent, payload: { ...payload, ...record } });
  });

  test('counts the bytes of the payload as forwarded', () => {
    const stamped = JSON.stringify({ a: 1, ...record }).length;
    expect(forwarded('{"id":1,"payload":{"a":1}}').payloadBytes).toBe(stamped);
    expect(forwarded('{"id":1,"payload":null}').payloadBytes).toBe(JSON.stringify(record).length);
    expect(forwarded('{"id":1}').payloadBytes).toBe(JSON.stringify(record).length);
  });

  test('a name sent twice counts once, the last, and the point is rebuilt', () => {
    const out = forwarded('{"id":1,"payload":{"a":1},"vector":[1],"payload":{"b":2}}');
    expect(out.spliced).toBe(false);
    expect(JSON.parse(out.text)).toEqual({ id: 1, vector: [1], payload: { b: 2, ...record } });
  });

  test('a sent attested key is replaced, even spelled with escapes', () => {
    for (const key of ['__svc_agent_id', '\\u005f_svc_agent_id']) {
      const out = forwarded(`{"id":1,"vector":[1],"payload":{"${key}":"forged","a":1}}`);
      expect(out.spliced).toBe(false);
      expect(JSON.parse(out.text).payload).toEqual({ a: 1, ...record });
    }
  });

  test.each([
    ['another reserved key', '{"id":1,"payload":{"__svc_other":1}}', 'RESERVED_FIELD'],
    ['an escaped reserved key', '{"id":1,"payload":{"\\u005f_svc_x":1}}', 'RESERVED_FIELD'],
    ['a payload that is not an object', '{"id":1,"payload":[1]}', 'VALIDATION_ERROR'],
    ['a bad id', '{"id":-1,"payload":{}}', 'INVALID_POINT_ID'],
    ['no id', '{"vector":[1]}', 'INVALID_POINT_ID'],
    [
      'a payload over 64 KB',
      `{"id":1,"payload":{"a":"${'x'.repeat(70_000)}"}}`,
      'PAYLOAD_TOO_LARGE',
    ],
  ])('refuses %s', (_, text, code) => {
    expect(() => forwarded(text)).toThrow(expect.objectContaining({ status: 400, code }));
  });
});

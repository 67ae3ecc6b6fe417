import { describe, expect, test } from '@jest/globals';
import type { AuthContext } from '../../auth/authenticate.js';
import {
  attestation,
  cleanKeyList,
  cleanPayload,
  isPointId,
  stripInternalKeys,
} from './payload-keys.js';

const callerWith = (agentId: string | null, deploymentId: string | null) =>
  ({ key: { agentId, deploymentId } }) as unknown as AuthContext;

describe('isPointId', () => {
  test.each([
    0,
    1,
    2 ** 53 - 1,
    'f47ac10b-58cc-4372-a567-0e02b2c3d479',
    'f47ac10b58cc4372a5670e02b2c3d479',
  ])('accepts %j', (id) => expect(isPointId(id)).toBe(true));
  test.each([-1, 1.5, '1', 'abc', null, {}, [], true])('refuses %j', (id) =>
    expect(isPointId(id)).toBe(false),
  );
});

describe('attestation', () => {
  test('stamps both ids for a key minted for a deployment', () => {
    expect(attestation(callerWith('a', 'd'))).toEqual({
      __svc_agent_id: 'a',
      __svc_deployment_id: 'd',
    });
  });
  test('stamps both null for a user key, and for a key carrying only one of the two', () => {
    const nulls = { __svc_agent_id: null, __svc_deployment_id: null };
    expect(attestation(callerWith(null, null))).toEqual(nulls);
    expect(attestation(callerWith('a', null))).toEqual(nulls);
  });
});

describe('cleanPayload and cleanKeyList', () => {
  test('drop the attested keys and refuse other reserved keys', () => {
    expect(
      cleanPayload({ a: 1, __svc_agent_id: 'x', __svc_deployment_id: 'y' }, 'payload'),
    ).toEqual({ a: 1 });
    expect(() => cleanPayload({ __svc_other: 1 }, 'payload')).toThrow(
      expect.objectContaining({ code: 'RESERVED_FIELD' }),
    );
    expect(cleanKeyList(['a', '__svc_agent_id'], 'keys')).toEqual(['a']);
    expect(() => cleanKeyList(['__svc_x'], 'keys')).toThrow(
      expect.objectContaining({ code: 'RESERVED_FIELD' }),
    );
  });

  test('counts a payload of exactly 64 KB as allowed and one byte more as too large', () => {
    const exact = { s: 'x'.repeat(64 * 1024 - '{"s":""}'.length) };
    expect(() => cleanPayload(exact, 'payload')).not.toThrow();
    expect(() => cleanPayload({ s: exact.s + 'x' }, 'payload')).toThrow(
      expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE', status: 400 }),
    );
  });
});

describe('stripInternalKeys', () => {
  test('removes internal keys from payloads of results, scroll pages and batches', () => {
    const body = {
      result: {
        points: [{ id: 1, payload: { a: 1, __svc_x: 2, __svc_agent_id: null } }],
      },
    };
    const batch = { result: [[{ id: 2, payload: { __svc_y: 1, b: 2 } }]] };
    stripInternalKeys(body);
    stripInternalKeys(batch);
    expect(body.result.points[0]!.payload).toEqual({ a: 1, __svc_agent_id: null });
    expect(batch.result[0]![0]!.payload).toEqual({ b: 2 });
  });
});

/** Owner references as the platform writes them: pure, no cluster. */
import { describe, expect, it } from '@jest/globals';
import { controllerRef } from './owner-reference.js';

const agent = {
  apiVersion: 'svc.dev/v1alpha1',
  kind: 'Agent',
  metadata: { name: 'a1', namespace: 'acct', uid: 'uid-1' },
};

describe('controllerRef', () => {
  it('marks the owner as controller and blocks its deletion until the child is gone', () => {
    expect(controllerRef(agent)).toEqual({
      apiVersion: 'svc.dev/v1alpha1',
      kind: 'Agent',
      name: 'a1',
      uid: 'uid-1',
      controller: true,
      blockOwnerDeletion: true,
    });
  });
});

describe('controllerRef of an owner not read from the server', () => {
  it('throws rather than write a reference without a uid', () => {
    expect(() => controllerRef({ ...agent, metadata: { name: 'a1' } })).toThrow('metadata.uid');
  });
});

/** Owner references and keys: pure functions, no cluster. */
import { describe, expect, it } from '@jest/globals';
import type { V1OwnerReference } from '@kubernetes/client-node';
import { controllerRef } from '../../crds/src/owner-reference.js';
import { objectKey, ownerKeyOf, parseObjectKey } from './owner.js';

const agent = {
  apiVersion: 'svc.dev/v1alpha1',
  kind: 'Agent',
  metadata: { name: 'a1', namespace: 'acct', uid: 'uid-1' },
};

function deploymentOwnedBy(...refs: V1OwnerReference[]) {
  return { metadata: { name: 'child', namespace: 'acct', ownerReferences: refs } };
}

describe('ownerKeyOf', () => {
  it('returns namespace/name of the controlling owner of the kind', () => {
    expect(ownerKeyOf(deploymentOwnedBy(controllerRef(agent)), 'Agent')).toBe('acct/a1');
    expect(ownerKeyOf(deploymentOwnedBy(controllerRef(agent)), 'Agent', 'svc.dev')).toBe('acct/a1');
  });

  it('ignores owners that are not the controller', () => {
    const ref = { ...controllerRef(agent), controller: false };
    expect(ownerKeyOf(deploymentOwnedBy(ref), 'Agent')).toBeNull();
  });

  it('returns null for another kind, another group, or no owners', () => {
    expect(ownerKeyOf(deploymentOwnedBy(controllerRef(agent)), 'Workspace')).toBeNull();
    expect(ownerKeyOf(deploymentOwnedBy(controllerRef(agent)), 'Agent', 'example.com')).toBeNull();
    expect(ownerKeyOf({ metadata: { name: 'x', namespace: 'acct' } }, 'Agent')).toBeNull();
  });

  it('picks the controller among several owners', () => {
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'u2' };
    expect(ownerKeyOf(deploymentOwnedBy(other, controllerRef(agent)), 'Agent')).toBe('acct/a1');
  });
});

describe('objectKey and parseObjectKey', () => {
  it('round-trip namespaced and cluster-scoped keys', () => {
    expect(objectKey(agent)).toBe('acct/a1');
    expect(parseObjectKey('acct/a1')).toEqual({ namespace: 'acct', name: 'a1' });
    expect(objectKey({ metadata: { name: 'node-1' } })).toBe('node-1');
    expect(parseObjectKey('node-1')).toEqual({ namespace: '', name: 'node-1' });
  });

  it('refuses an object without a name', () => {
    expect(() => objectKey({ metadata: {} })).toThrow('metadata.name');
  });
});

import { describe, expect, it } from '@jest/globals';
import { parseTenantNamespace, tenantNamespaceOf } from './tenant-namespace.js';

describe('tenant namespaces', () => {
  it('names and parses back a tenant', () => {
    const id = '9cc9bcc6-f80e-46df-907f-d483fc63bab2';
    expect(tenantNamespaceOf(id, 'live')).toBe(`svc-live-${id}`);
    expect(parseTenantNamespace(`svc-live-${id}`)).toEqual({ accountId: id, environment: 'live' });
    expect(parseTenantNamespace(`svc-test-${id}`)).toEqual({ accountId: id, environment: 'test' });
  });

  it.each(['svc-system', 'default', 'svc-live-', 'svc-prod-abc', 'kube-system', 'svc-live-A_b'])(
    'is not a tenant: %s',
    (namespace) => {
      expect(parseTenantNamespace(namespace)).toBeNull();
    },
  );
});

/**
 * The namespace of a tenant's objects: `svc-<environment>-<account id>`, one per account and
 * key environment (`live` or `test`). The API server makes it; the operator reads the tenant
 * back from the namespace of what it watches.
 */

/** The environments a key, and so a tenant namespace, belongs to. */
export type TenantEnvironment = 'live' | 'test';

/** The namespace of a tenant. */
export function tenantNamespaceOf(accountId: string, environment: TenantEnvironment): string {
  return `svc-${environment}-${accountId}`;
}

/** The tenant a namespace belongs to, or null for a namespace that is not a tenant's. */
export function parseTenantNamespace(
  namespace: string,
): { accountId: string; environment: TenantEnvironment } | null {
  const match = /^svc-(live|test)-([0-9a-z][0-9a-z-]*)$/.exec(namespace);
  if (!match) return null;
  return { environment: match[1] as TenantEnvironment, accountId: match[2]! };
}

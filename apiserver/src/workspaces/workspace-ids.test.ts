import { describe, expect, it } from '@jest/globals';
import { isUuid } from '../agents/names.js';
import { workspaceId } from './workspace-ids.js';

describe('workspaceId', () => {
  it('is a version 5 UUID, the same for the same namespace and name', () => {
    const id = workspaceId('svc-live-a', 'research');
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('5');
    expect('89ab').toContain(id[19]);
    expect(workspaceId('svc-live-a', 'research')).toBe(id);
  });

  it('differs between names and between tenants', () => {
    const id = workspaceId('svc-live-a', 'research');
    expect(workspaceId('svc-live-a', 'research2')).not.toBe(id);
    expect(workspaceId('svc-live-b', 'research')).not.toBe(id);
    expect(workspaceId('svc-test-a', 'research')).not.toBe(id);
  });
});

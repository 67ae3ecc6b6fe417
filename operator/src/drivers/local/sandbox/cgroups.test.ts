/** What the operator's log says of the machine's cgroups: which version, or that none limits agents. */
import { describe, expect, it } from '@jest/globals';
import { describeCgroups } from './cgroups.js';

describe('describeCgroups', () => {
  it('names cgroup v1 and both controllers it uses', () => {
    expect(
      describeCgroups({
        kind: 'v1',
        memoryRoot: '/sys/fs/cgroup/memory/svc',
        pidsRoot: '/sys/fs/cgroup/pids/svc',
      }),
    ).toBe(
      'cgroup v1: memory and process-count limits under /sys/fs/cgroup/memory/svc and /sys/fs/cgroup/pids/svc',
    );
  });

  it('names cgroup v2 and its subtree', () => {
    expect(describeCgroups({ kind: 'v2', root: '/sys/fs/cgroup/svc' })).toBe(
      'cgroup v2: memory and process-count limits under /sys/fs/cgroup/svc',
    );
  });

  it('says plainly that nothing is enforced when neither is usable, and why', () => {
    expect(describeCgroups({ kind: 'none', reason: 'no writable memory controller' })).toBe(
      "no cgroup limits: no writable memory controller; agents' memory_mb and process counts are NOT enforced",
    );
  });
});

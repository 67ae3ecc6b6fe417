/** Leader election against the real kube-apiserver, with 2 s leases to stay fast. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CoordinationV1Api,
  CoreV1Api,
  V1MicroTime,
  type KubeConfig,
  type V1Lease,
} from '@kubernetes/client-node';
import { createLogger } from '../../common/logger.js';
import { LeaderElector, type LeaderElectorOptions } from '../../common/kube/leader-election.js';
import { createNamespace, kubeConfig, uniqueSuffix } from '../harness/env.js';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.js';
import { kubeChanges, waitFor, type ChangeSource } from '../harness/wait.js';

const LEASE_SECONDS = 2;
let kc: KubeConfig;
let namespace: string;
let leases: CoordinationV1Api;
const electors: LeaderElector[] = [];
const proxies: TcpProxy[] = [];

/** What one candidate went through, with timestamps (ms, performance clock). */
interface Candidate {
  elector: LeaderElector;
  started: number[];
  stopped: number[];
  signals: AbortSignal[];
}

/** Waits woken by the candidates, each time one starts or stops leading. */
const waiting = new Set<() => void>();
const leadershipChanges: ChangeSource = (changed) => {
  waiting.add(changed);
  return () => waiting.delete(changed);
};
const notify = () => waiting.forEach((changed) => changed());

function candidate(
  lease: string,
  overrides: Partial<LeaderElectorOptions> = {},
  cluster: KubeConfig = kc,
): Candidate {
  const record: Omit<Candidate, 'elector'> = { started: [], stopped: [], signals: [] };
  const elector = new LeaderElector({
    kubeConfig: cluster,
    namespace,
    name: lease,
    leaseDurationSeconds: LEASE_SECONDS,
    logger: createLogger('test', 'silent'),
    onStartedLeading: (signal) => {
      record.started.push(performance.now());
      record.signals.push(signal);
      notify();
    },
    onStoppedLeading: () => {
      record.stopped.push(performance.now());
      notify();
    },
    ...overrides,
  });
  electors.push(elector);
  return { elector, ...record };
}

/**
 * Waits for `check` on the candidates' leadership, checked again each time one starts or stops
 * leading (an elector sets isLeader before it calls back); fails naming `what`.
 */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  await waitFor(what, check, { timeoutMs: ms, wakeOn: leadershipChanges });
}

function readLease(name: string): Promise<V1Lease> {
  return leases.readNamespacedLease({ name, namespace });
}

/**
 * Resolves once the lease has been renewed `times` more times (its renewTime moved on), woken
 * by a watch on the namespace's leases: the wait for the leader to keep leading, in place of
 * a sleep of a few renew periods.
 */
async function renewals(lease: string, times: number): Promise<void> {
  const seen = new Set([String((await readLease(lease)).spec?.renewTime)]);
  await waitFor(
    `${times} renewals of ${lease}`,
    async () => {
      seen.add(String((await readLease(lease)).spec?.renewTime));
      return seen.size > times;
    },
    {
      timeoutMs: 10_000,
      wakeOn: kubeChanges(kc, `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`),
    },
  );
}

beforeAll(async () => {
  kc = kubeConfig();
  namespace = await createNamespace(kc, 'leader');
  leases = kc.makeApiClient(CoordinationV1Api);
});

afterEach(async () => {
  await Promise.all(electors.splice(0).map((elector) => elector.stop()));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

afterAll(async () => {
  await kc.makeApiClient(CoreV1Api).deleteNamespace({ name: namespace });
});

describe('LeaderElector', () => {
  it('lets exactly one of two candidates lead, and names it in the lease', async () => {
    const lease = `lease-${uniqueSuffix()}`;
    const a = candidate(lease);
    const b = candidate(lease);
    a.elector.start();
    b.elector.start();
    await until(() => a.elector.isLeader || b.elector.isLeader, 5000, 'a leader');
    const leader = a.elector.isLeader ? a : b;
    // After each of several renewals (every ~667 ms) the leader is still the only one.
    for (let i = 0; i < 3; i++) {
      expect([a, b].filter((c) => c.elector.isLeader)).toEqual([leader]);
      await renewals(lease, 1);
    }
    expect([a, b].filter((c) => c.elector.isLeader)).toEqual([leader]);
    expect(a.started.length + b.started.length).toBe(1);
    const record = await readLease(lease);
    expect(record.spec?.holderIdentity).toBe(leader.elector.identity);
    expect(record.spec?.leaseDurationSeconds).toBe(LEASE_SECONDS);
    expect(record.spec?.leaseTransitions).toBe(0);
    // MicroTime fields come back as strings with six fractional digits.
    expect(String(record.spec?.renewTime)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(String(record.spec?.acquireTime)).toMatch(/\.\d{6}Z$/);
  });

  it('lets one of five candidates racing for a missing lease win', async () => {
    const lease = `lease-${uniqueSuffix()}`;
    const racers = Array.from({ length: 5 }, () => candidate(lease));
    for (const racer of racers) racer.elector.start();
    await until(() => racers.some((r) => r.elector.isLeader), 5000, 'a leader');
    await renewals(lease, 2);
    expect(racers.filter((r) => r.elector.isLeader)).toHaveLength(1);
    expect(racers.reduce((sum, r) => sum + r.started.length, 0)).toBe(1);
  });

  it('hands over within a couple of seconds when the leader stops and releases', async () => {
    const lease = `lease-${uniqueSuffix()}`;
    const a = candidate(lease);
    a.elector.start();
    await until(() => a.elector.isLeader, 5000, 'a to lead');
    const b = candidate(lease);
    b.elector.start();
    // b tried at once; a renewal by a has come since.
    await renewals(lease, 1);
    expect(b.elector.isLeader).toBe(false);

    const stoppedAt = performance.now();
    await a.elector.stop();
    expect(a.signals[0]?.aborted).toBe(true);
    expect(a.stopped).toHaveLength(1);
    const released = await readLease(lease);
    // Released (empty holder), unless b was quick enough to take it already.
    expect(['', b.elector.identity]).toContain(released.spec?.holderIdentity ?? '');

    await until(() => b.elector.isLeader, 2500, 'b to take over');
    // Well under the 2 s lease: b did not wait for expiry.
    expect((b.started[0] as number) - stoppedAt).toBeLessThan(1800);
    expect((b.started[0] as number) > (a.stopped[0] as number)).toBe(true);
    const record = await readLease(lease);
    expect(record.spec?.holderIdentity).toBe(b.elector.identity);
    expect(record.spec?.leaseTransitions).toBe(1);
  });

  it('steps down at once when another holder takes the lease, and retakes it once expired', async () => {
    const lease = `lease-${uniqueSuffix()}`;
    const a = candidate(lease);
    a.elector.start();
    await until(() => a.elector.isLeader, 5000, 'a to lead');

    // Another process deletes the lease and takes it (and then dies without renewing).
    await leases.deleteNamespacedLease({ name: lease, namespace });
    const now = new V1MicroTime();
    await leases.createNamespacedLease({
      namespace,
      body: {
        metadata: { name: lease },
        spec: {
          holderIdentity: 'intruder',
          leaseDurationSeconds: LEASE_SECONDS,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: 7,
        },
      },
    });
    const takenAt = performance.now();
    await until(() => !a.elector.isLeader, 2000, 'a to step down');
    expect(a.signals[0]?.aborted).toBe(true);
    expect(a.stopped).toHaveLength(1);
    // At its next renewal (every ~667 ms), not when the 2 s lease would have run out.
    expect((a.stopped[0] as number) - takenAt).toBeLessThan(1500);

    // The intruder never renews; a takes the lease back after it expires, not before.
    await until(() => a.started.length === 2, 6000, 'a to lead again');
    expect((a.started[1] as number) - takenAt).toBeGreaterThanOrEqual(LEASE_SECONDS * 1000);
    const record = await readLease(lease);
    expect(record.spec?.holderIdentity).toBe(a.elector.identity);
    expect(record.spec?.leaseTransitions).toBe(8);
  });

  it('steps down when cut off from the apiserver, before another candidate takes over', async () => {
    const lease = `lease-${uniqueSuffix()}`;
    const proxy = await startTcpProxy(kc);
    proxies.push(proxy);
    const cutOff = candidate(lease, {}, proxy.kubeConfig());
    cutOff.elector.start();
    await until(() => cutOff.elector.isLeader, 5000, 'the proxied candidate to lead');
    const other = candidate(lease);
    other.elector.start();
    await renewals(lease, 1);

    // A partition: requests hang rather than fail, so only the deadline timer can act.
    proxy.setMode('hang');
    const partitionedAt = performance.now();
    await until(() => !cutOff.elector.isLeader, 3000, 'the cut-off leader to step down');
    await until(() => other.elector.isLeader, 5000, 'the other candidate to take over');
    const steppedDown = cutOff.stopped[0] as number;
    // Within the renew deadline (2/3 of the lease) of its last renewal.
    expect(steppedDown - partitionedAt).toBeLessThan((LEASE_SECONDS * 1000 * 2) / 3 + 500);
    expect(cutOff.signals[0]?.aborted).toBe(true);
    expect(other.started[0] as number).toBeGreaterThan(steppedDown);

    // Healed, the old leader stays a follower while the new one renews.
    proxy.setMode('forward');
    await renewals(lease, 2);
    expect(cutOff.elector.isLeader).toBe(false);
    expect(other.elector.isLeader).toBe(true);
  });

  it('refuses timings that would let two leaders overlap', () => {
    expect(
      () =>
        new LeaderElector({
          kubeConfig: kc,
          namespace,
          name: 'x',
          leaseDurationSeconds: 2,
          renewDeadlineMs: 2000,
          onStartedLeading: () => undefined,
        }),
    ).toThrow('renewDeadlineMs');
  });
});

/**
 * The vector engine's pod under failure, on the real node: its process killed (-9) from the
 * host while writes flow through the vector plane, the pod restarts and every acknowledged
 * write is there; its process stopped (SIGSTOP, a hung engine), the readiness probe takes the
 * pod out of service and the liveness probe restarts its container.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { CoreV1Api, KubeConfig, V1Pod } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { toolsBin } from '../../hack/lib/paths.js';
import { nodePaths } from '../../hack/node/layout.js';
import { kubeChanges, waitFor } from '../harness/wait.js';
import { clusterState } from './node-cluster.js';
import { adminKube, call, session, type Session } from './platform.js';

const run = promisify(execFile);
const ENGINE_POD = 'svc-engine-0';
const PODS = '/api/v1/namespaces/svc-system/pods';

let s: Session;
let kc: KubeConfig;
let core: CoreV1Api;
let containerd: string;

beforeAll(async () => {
  s = await session();
  ({ kc, core } = adminKube(s.kubeconfig));
  containerd = nodePaths((await clusterState()).dir).containerdSocket;
});

/** The engine's pod as the API sees it. */
function enginePod(): Promise<V1Pod> {
  return core.readNamespacedPod({ name: ENGINE_POD, namespace: 'svc-system' });
}

function engineState(pod: V1Pod) {
  const status = pod.status?.containerStatuses?.find((c) => c.name === 'engine');
  return {
    restarts: status?.restartCount ?? 0,
    ready: pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    containerId: status?.containerID?.replace(/^containerd:\/\//, '') ?? '',
  };
}

/** The host pid of the engine container's process (the task containerd runs for it). */
async function enginePid(containerId: string): Promise<number> {
  const { stdout } = await run(join(toolsBin, 'ctr'), [
    '-a',
    containerd,
    '-n',
    'k8s.io',
    'task',
    'ls',
  ]);
  const line = stdout.split('\n').find((l) => l.startsWith(containerId));
  if (!line) throw new Error(`containerd runs no task ${containerId}:\n${stdout}`);
  return Number(line.split(/\s+/)[1]);
}

/** Waits for the engine pod to have restarted past `restarts` and to be Ready again. */
function restartedAndReady(restarts: number) {
  return waitFor(
    `the engine's container to restart (restarts > ${restarts}) and be Ready`,
    async () => {
      const state = engineState(await enginePod());
      return state.restarts > restarts && state.ready ? state : undefined;
    },
    { timeoutMs: 180_000, wakeOn: kubeChanges(kc, PODS) },
  );
}

const vectors = (path: string, method: string, body?: unknown) =>
  call<{ result?: unknown; error?: { code: string } }>(s.vectorsUrl, s.key, method, path, body);

describe('the engine pod under failure', () => {
  it('restarts after its process is killed, with every acknowledged write kept', async () => {
    const made = await vectors('/api/v1/collections', 'POST', {
      name: 'durable',
      vectors: { size: 8, distance: 'cosine' },
    });
    expect(made.status).toBeLessThan(300);
    const before = engineState(await enginePod());
    expect(before.ready).toBe(true);
    const acknowledged: number[] = [];
    let refused = 0;
    let next = 0;
    let stop = false;
    // Two writers, each sending batches of 25 points and waiting for each answer (wait=true:
    // a 200 means the write is durable).
    const writer = async () => {
      while (!stop) {
        const ids = Array.from({ length: 25 }, () => next++);
        const res = await vectors('/api/v1/collections/durable/points?wait=true', 'PUT', {
          points: ids.map((id) => ({
            id,
            vector: Array.from({ length: 8 }, (_, i) => ((id + i) % 7) + 1),
          })),
        }).catch(() => ({ status: 0 }));
        if (res.status === 200) acknowledged.push(...ids);
        else {
          refused++;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    const writers = [writer(), writer()];
    try {
      await waitFor(
        '500 acknowledged points before the kill',
        async () => acknowledged.length >= 500,
        {
          everyMs: 50,
        },
      );
      await run(join(toolsBin, 'ctr'), [
        '-a',
        containerd,
        '-n',
        'k8s.io',
        'task',
        'kill',
        '--signal',
        'SIGKILL',
        before.containerId,
      ]);
      const atKill = acknowledged.length;
      await restartedAndReady(before.restarts);
      await waitFor(
        '500 more acknowledged points after the restart',
        async () => acknowledged.length >= atKill + 500,
        { everyMs: 50, timeoutMs: 120_000 },
      );
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    expect(refused).toBeGreaterThan(0); // the writes did meet the engine down
    const missing: number[] = [];
    for (let i = 0; i < acknowledged.length; i += 500) {
      const ids = acknowledged.slice(i, i + 500);
      const got = await vectors('/api/v1/collections/durable/points/retrieve', 'POST', {
        ids,
        with_payload: false,
      });
      expect(got.status).toBe(200);
      const found = new Set((got.body.result as Array<{ id: number }>).map((p) => p.id));
      missing.push(...ids.filter((id) => !found.has(id)));
    }
    expect({ acknowledged: acknowledged.length, missing }).toEqual({
      acknowledged: acknowledged.length,
      missing: [],
    });
  });

  it('is taken out of service by its readiness probe and restarted by its liveness probe when hung', async () => {
    const before = engineState(await enginePod());
    expect(before.ready).toBe(true);
    const pid = await enginePid(before.containerId);
    process.kill(pid, 'SIGSTOP');
    try {
      await waitFor(
        'the hung engine pod to be not Ready (readiness probe)',
        async () => !engineState(await enginePod()).ready,
        { timeoutMs: 60_000, wakeOn: kubeChanges(kc, PODS) },
      );
      const after = await restartedAndReady(before.restarts);
      expect(after.containerId).not.toBe(before.containerId);
    } finally {
      // A stopped process that is still there (the test failed before the restart) goes on.
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Gone with its container: the liveness probe's restart.
      }
    }
    const events = await core.listNamespacedEvent({
      namespace: 'svc-system',
      fieldSelector: `involvedObject.name=${ENGINE_POD}`,
    });
    expect(events.items.map((e) => `${e.reason}: ${e.message}`).join('\n')).toMatch(
      /Unhealthy: Liveness probe failed/,
    );
    // The data survived the hang too. The vector plane's first answers after the restart may be
    // a retryable error (its kept-alive connections to the old process): a client retries.
    let last: unknown;
    const count = await waitFor(
      'the vector plane to count the points after the restart',
      async () => {
        const res = await vectors('/api/v1/collections/durable/points/count', 'POST', {
          exact: true,
        });
        last = res;
        // Only what the contract marks retryable is retried; any other answer fails here.
        if (res.status !== 200 && ![502, 503, 504].includes(res.status))
          throw new Error(`the count answered ${res.status}: ${JSON.stringify(res.body)}`);
        return res.status === 200 ? (res.body.result as { count: number }).count : undefined;
      },
      { timeoutMs: 30_000, lastSeen: () => last },
    );
    expect(count).toBeGreaterThanOrEqual(1000);
  });
});

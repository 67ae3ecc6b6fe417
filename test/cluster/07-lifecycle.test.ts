/**
 * The platform's and an agent's lifecycle on the real node: a `helm upgrade` with a changed
 * value rolls every platform pod and loses nothing (accounts, agents, their answers, vector
 * points); deleting an agent takes its pods and objects; `helm uninstall` leaves what the README
 * says it leaves, and the README's install, run again, finds everything as it was.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { CoreV1Api, KubeConfig, V1Pod } from '@kubernetes/client-node';
import { ApiextensionsV1Api, AppsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, LABELS, OBJECT_NAMES, PLURALS } from '../../crds/src/index.js';
import { kubeChanges, waitFor } from '../harness/wait.js';
import {
  accountNamespace,
  adminKube,
  answerThroughEdge,
  asAdmin,
  call,
  controlPlane,
  frontDoors,
  readmeInstall,
  saveSession,
  session,
  type Session,
} from './platform.js';

let s: Session;
let kc: KubeConfig;
let core: CoreV1Api;

beforeAll(async () => {
  s = await session();
  ({ kc, core } = adminKube(s.kubeconfig));
});

const PODS = '/api/v1/namespaces/svc-system/pods';

/** The platform's pods, by uid. */
async function platformPods(): Promise<V1Pod[]> {
  return (await core.listNamespacedPod({ namespace: 'svc-system' })).items;
}

/** What a user has on the platform: their agents' names and the vector collection's count. */
async function userData(at: Session) {
  const agents = await controlPlane(at)<{ items: Array<{ name: string }> }>(
    'GET',
    '/api/v1/agents',
  );
  const count = await call<{ result: { count: number } }>(
    at.vectorsUrl,
    at.key,
    'POST',
    '/api/v1/collections/durable/points/count',
    { exact: true },
  );
  return {
    agents: agents.body.items.map((a) => a.name).sort(),
    points: count.body.result?.count,
  };
}

describe('the platform and its agents over time', () => {
  it('rolls every platform pod on a helm upgrade with a changed value, and loses nothing', async () => {
    const before = await userData(s);
    expect(before.points).toBeGreaterThanOrEqual(1000);
    const oldPods = new Set((await platformPods()).map((p) => p.metadata?.uid));
    await asAdmin(
      s.kubeconfig,
      'helm upgrade svc charts/svc -n svc-system --reuse-values ' +
        '--set-string apiserver.podAnnotations.rollout=2,operator.podAnnotations.rollout=2,' +
        'engine.podAnnotations.rollout=2 --wait --timeout 5m',
    );
    const pods = await waitFor(
      'only new platform pods, all Ready',
      async () => {
        const items = await platformPods();
        const fresh = items.filter(
          (p) =>
            !oldPods.has(p.metadata?.uid) &&
            p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return fresh.length === items.length && items.length >= 5 ? items : undefined;
      },
      { timeoutMs: 180_000, wakeOn: kubeChanges(kc, PODS) },
    );
    expect(pods.every((p) => p.metadata?.annotations?.rollout === '2')).toBe(true);
    // The front doors through the new pods (how soon is printed: once in CI, a new connection to
    // the Service waited 10 s right after the roll, which two direct tries never showed).
    const rolled = Date.now();
    let lastError: unknown;
    const after = await waitFor(
      'the control and vector planes to answer through the new API servers',
      () =>
        userData(s).catch((err: unknown) => {
          // Only a connection that failed is asked again; an answer that is wrong fails here.
          // (By name: fetch's TypeError is of another realm than this test's.)
          const failed = err as Error;
          if (failed.name !== 'TypeError' || failed.message !== 'fetch failed') throw err;
          lastError = String(failed.cause ?? failed);
          return undefined;
        }),
      { timeoutMs: 60_000, lastSeen: () => lastError },
    );
    process.stdout.write(`the front doors answered ${Date.now() - rolled} ms after the roll\n`);
    expect(after).toEqual(before);
    // Through the new API servers' edge (a wake, if it slept meanwhile, by the new operators).
    const asked = Date.now();
    expect(await answerThroughEdge(s, 'py-svc', 90_000)).toContain('"hello": "from python"');
    process.stdout.write(`py-svc answered through the new edge after ${Date.now() - asked} ms\n`);
  });

  it('deletes an agent: its pods, workload and secrets go', async () => {
    const api = controlPlane(s);
    const agent = (await api<{ id: string }>('GET', '/api/v1/agents/node-svc')).body;
    const namespace = accountNamespace(s);
    const selector = `${LABELS.agentId}=${agent.id}`;
    const apps = kc.makeApiClient(AppsV1Api);
    const owned = async () => [
      ...(await core.listNamespacedPod({ namespace, labelSelector: selector })).items,
      ...(await apps.listNamespacedDeployment({ namespace, labelSelector: selector })).items,
      ...(await core.listNamespacedService({ namespace, labelSelector: selector })).items,
      ...(await core.listNamespacedSecret({ namespace, labelSelector: selector })).items,
    ];
    // A pod, its Deployment and its Service at least.
    expect((await owned()).length).toBeGreaterThanOrEqual(3);
    expect((await api('DELETE', '/api/v1/agents/node-svc')).status).toBeLessThan(300);
    await waitFor(
      `node-svc's pods to be gone`,
      async () =>
        (await core.listNamespacedPod({ namespace, labelSelector: selector })).items.length === 0,
      { timeoutMs: 120_000, wakeOn: kubeChanges(kc, `/api/v1/namespaces/${namespace}/pods`) },
    );
    expect((await api('GET', '/api/v1/agents/node-svc')).status).toBe(404);
    const name = OBJECT_NAMES.workload(agent.id);
    await waitFor(
      `node-svc's Deployment, Service and Secrets to be gone`,
      async () => (await owned()).length === 0,
    );
    await expect(core.readNamespacedService({ namespace, name })).rejects.toMatchObject({
      code: 404,
    });
  });

  it('leaves the CRDs, the agents, their namespaces and the engine volume on uninstall; install finds them again', async () => {
    const before = await userData(s);
    await asAdmin(s.kubeconfig, 'helm uninstall svc -n svc-system --wait --timeout 3m');
    await waitFor('the platform pods to be gone', async () => (await platformPods()).length === 0, {
      timeoutMs: 120_000,
      wakeOn: kubeChanges(kc, PODS),
    });
    // What the README says stays.
    const crds = kc.makeApiClient(ApiextensionsV1Api);
    for (const name of ['agents', 'agentdeployments', 'workspaces']) {
      expect(
        (await crds.readCustomResourceDefinition({ name: `${name}.${API_GROUP}` })).metadata?.name,
      ).toBe(`${name}.${API_GROUP}`);
    }
    const namespace = accountNamespace(s);
    expect((await core.readNamespace({ name: namespace })).status?.phase).toBe('Active');
    const agents = (await kc.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace,
      plural: PLURALS.Agent,
    })) as { items: unknown[] };
    expect(agents.items.length).toBe(before.agents.length);
    const claims = await core.listNamespacedPersistentVolumeClaim({ namespace: 'svc-system' });
    expect(claims.items.map((c) => c.metadata?.name)).toEqual(['data-svc-engine-0']);
    // The agents keep serving their pods; the install, as written, brings the platform back.
    await asAdmin(s.kubeconfig, await readmeInstall('--wait --timeout 5m'));
    s = { ...s, ...(await frontDoors(core)) };
    await saveSession(s);
    expect(await userData(s)).toEqual(before);
    expect(await answerThroughEdge(s, 'secret-svc')).toMatch(/^s3cret-/);
  });
});

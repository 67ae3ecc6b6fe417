/**
 * Services of every runtime in real pods on the Kubernetes driver, through the public REST
 * API: deployed from the examples (and a Bun server), answering through the edge, within the
 * Pod Security level the README promises, their logs read through the API. Also deploys the
 * agent that 04-wake.test.ts finds asleep.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { LABELS } from '../../crds/src/index.js';
import { waitFor } from '../harness/wait.js';
import {
  accountNamespace,
  adminKube,
  answerThroughEdge,
  asAdmin,
  controlPlane,
  deployed,
  example,
  restrictedRefusal,
  session,
  type Session,
} from './platform.js';

let s: Session;
let kc: KubeConfig;
let core: CoreV1Api;
let api: ReturnType<typeof controlPlane>;

beforeAll(async () => {
  s = await session();
  ({ kc, core } = adminKube(s.kubeconfig));
  api = controlPlane(s);
});

const BUN_SERVER = {
  'server.ts': [
    'export default {',
    '  fetch(request: Request): Response {',
    '    return new Response(`bun ${Bun.version}:${new URL(request.url).pathname}`);',
    '  },',
    '};',
    '',
  ].join('\n'),
  'svc.yaml': 'runtime: bun\ntype: service\nentrypoint: server.ts\n',
};

describe('services on the Kubernetes driver, in real pods', () => {
  it('deploys an agent that idles after a minute (04-wake.test.ts wakes it)', async () => {
    const created = await api('POST', '/api/v1/agents', {
      name: 'sleepy',
      runtime: 'python3.11',
      idle_timeout_minutes: 1,
    });
    expect(created.status).toBe(201);
    await deployed(s, kc, 'sleepy', await example('python-service'));
    expect(await answerThroughEdge(s, 'sleepy')).toContain('"hello": "from python"');
  });

  it.each([
    ['py-svc', 'python3.11', 'python-service', '"hello": "from python"'],
    ['node-svc', 'node22', 'node-service', '"hello":"from node"'],
    ['bun-svc', 'bun', BUN_SERVER, 'bun 1.4.5:/'],
  ] as const)(
    'deploys %s (%s) and it answers through the edge',
    async (name, runtime, source, answer) => {
      expect((await api('POST', '/api/v1/agents', { name, runtime })).status).toBe(201);
      const files = typeof source === 'string' ? await example(source) : source;
      await deployed(s, kc, name, files);
      expect(await answerThroughEdge(s, name)).toContain(answer);
    },
  );

  it('runs the runtimes\' pods within Pod Security "restricted", in a namespace enforcing "baseline"', async () => {
    const namespace = accountNamespace(s);
    const ns = await core.readNamespace({ name: namespace });
    expect(ns.metadata?.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'baseline',
      'pod-security.kubernetes.io/warn': 'restricted',
    });
    const pods = (await core.listNamespacedPod({ namespace, labelSelector: LABELS.agentId })).items;
    expect(pods.length).toBeGreaterThanOrEqual(4);
    for (const pod of pods) {
      expect([pod.metadata?.name, await restrictedRefusal(core, pod)]).toEqual([
        pod.metadata?.name,
        '',
      ]);
      expect([pod.metadata?.name, pod.spec?.automountServiceAccountToken]).toEqual([
        pod.metadata?.name,
        false,
      ]);
    }
  });

  it("reads the service's logs through the API", async () => {
    const logs = await waitFor('a log line of py-svc', async () => {
      const res = await api<{ items: Array<{ message: string }> }>(
        'GET',
        '/api/v1/agents/py-svc/logs',
      );
      return res.body.items?.length ? res.body.items : undefined;
    });
    expect(logs.length).toBeGreaterThan(0);
  });
});

describe('what a kubectl user sees of them', () => {
  it('shows the Events of a deployment and its conditions (kubectl describe)', async () => {
    const deployments = await api<{ items: Array<{ id: string; state: string }> }>(
      'GET',
      '/api/v1/agents/py-svc/deployments',
    );
    const active = deployments.body.items.find((d) => d.state === 'active');
    expect(active).toBeDefined();
    const described = await asAdmin(
      s.kubeconfig,
      `kubectl -n ${accountNamespace(s)} describe agentdeployment ${active!.id}`,
    );
    // The transitions of its Ready condition, recorded by the operator as Events about it.
    for (const reason of ['Building', 'Built', 'Active'])
      expect(described).toMatch(new RegExp(`Normal\\s+${reason}\\b`));
    const conditions = JSON.parse(
      await asAdmin(
        s.kubeconfig,
        `kubectl -n ${accountNamespace(s)} get agentdeployment ${active!.id} -o jsonpath='{.status.conditions}'`,
      ),
    ) as Array<Record<string, unknown>>;
    expect(conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Active' }),
        expect.objectContaining({ type: 'Built', status: 'True' }),
      ]),
    );
    for (const c of conditions) {
      expect(Object.keys(c).sort()).toEqual([
        'lastTransitionTime',
        'message',
        'observedGeneration',
        'reason',
        'status',
        'type',
      ]);
    }
  });
});

/**
 * A cluster whose pods "run" without a container runtime: a second kube-apiserver
 * on the harness's etcd (./regions.ts, so the other tests' pods stay unscheduled
 * and untouched), with its kube-controller-manager, a real kube-scheduler, and
 * kwok playing the kubelet of fake nodes. Pods the controllers create are
 * scheduled onto those nodes and move to Running and Ready; Job pods then
 * Succeed (kwok's own Stages, ./kwok-stages.yaml). Nothing runs inside a pod.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type KubeConfig, type V1Node } from '@kubernetes/client-node';
import { launch } from '../../common/component-starter.js';
import { freePort } from '../../common/ports.js';
import { ProcessGroup } from '../../common/processes.js';
import { startScheduler } from '../../hack/control-plane/components.js';
import { ensurePki } from '../../hack/control-plane/pki.js';
import { toolPath } from '../../hack/lib/tools.js';
import { harness } from './env.js';
import { startTestRegion, type TestRegion } from './regions.js';

/** The annotation that marks the nodes kwok plays the kubelet of. */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

/** A running kwok cluster. */
export interface KwokCluster {
  /** The cluster's own kube-apiserver (a test region of the harness). */
  region: TestRegion;
  kc: KubeConfig;
  kubeconfigPath: string;
  /** Names of the fake nodes. */
  nodes: string[];
  /** The harness's admin token, which this API accepts too. */
  adminToken: string;
  stop(): Promise<void>;
}

/** A fake node with room for `pods` pods; kwok fills in its status. */
export function fakeNode(name: string, pods = 110): V1Node {
  const capacity = { cpu: '32', memory: '256Gi', pods: String(pods) };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { [KWOK_NODE_ANNOTATION]: 'fake' },
      labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', type: 'kwok' },
    },
    status: { capacity, allocatable: capacity },
  };
}

async function allNodesReady(core: CoreV1Api, names: string[]): Promise<boolean> {
  const list = await core.listNode();
  const ready = new Set(
    list.items
      .filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      .map((n) => n.metadata?.name),
  );
  return names.every((name) => ready.has(name));
}

/**
 * Starts a kwok cluster named `name` with `nodes` fake nodes (each holding up
 * to `podsPerNode` pods); resolves once every node is Ready.
 */
export async function startKwokCluster(
  name: string,
  opts: { nodes?: number; podsPerNode?: number } = {},
): Promise<KwokCluster> {
  const count = opts.nodes ?? 2;
  const region = await startTestRegion(name, { controllerManager: true });
  const group = new ProcessGroup(join(harness().dir, `kwok-${name}-logs`));
  try {
    const pki = await ensurePki(join(harness().dir, 'pki'));
    const core = region.kc.makeApiClient(CoreV1Api);
    const nodes = Array.from({ length: count }, (_, i) => `kwok-${name}-${i}`);
    await Promise.all(
      nodes.map((node) => core.createNode({ body: fakeNode(node, opts.podsPerNode) })),
    );

    const scheduler = startScheduler(group, region.kubeconfigPath, pki, `kube-scheduler-${name}`);
    const stages = fileURLToPath(new URL('./kwok-stages.yaml', import.meta.url));
    const kwok = launch(group, {
      name: `kwok-${name}`,
      command: toolPath('kwok'),
      args: [
        `--kubeconfig=${region.kubeconfigPath}`,
        `--config=${stages}`,
        `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
        // Room for a bench's thousands of pods; the addresses are never dialled.
        '--cidr=10.0.0.1/16',
        '--node-ip=10.255.0.1',
        `--server-address=127.0.0.1:${await freePort()}`,
        // Leases keep the node lifecycle controller from marking the nodes NotReady.
        '--node-lease-duration-seconds=40',
      ],
      readyWhen: { probe: () => allNodesReady(core, nodes) },
    });
    await Promise.all([scheduler, group.waitReady(kwok.proc, kwok.ready, 60_000)]);
    return {
      region,
      kc: region.kc,
      kubeconfigPath: region.kubeconfigPath,
      nodes,
      adminToken: pki.adminToken,
      stop: async () => {
        await group.stopAll();
        await region.stop();
      },
    };
  } catch (err) {
    await group.stopAll();
    await region.stop();
    throw err;
  }
}

/**
 * A second region on one machine: another kube-apiserver on the control
 * plane's etcd under its own `--etcd-prefix` (so its objects are its own),
 * trusting the same PKI, with its own kubeconfig and the CRDs applied, and
 * optionally its own kube-controller-manager (garbage collection of what its
 * operator creates). See ../shared/design.md, "Regions".
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import type { ProcessGroup } from '../../common/processes.js';
import { PLURALS } from '../../crds/src/index.js';
import type { Supervisor } from '../lib/supervisor.js';
import { startControllerManager, startKubeApiserver } from './components.js';
import { applyCrds } from './crds.js';
import { writeKubeconfig } from './kubeconfig.js';
import type { ControlPlane } from './index.js';

/** Options of {@link startRegionApi}. */
export interface RegionApiOptions {
  /** The region's name: its etcd prefix is `/registry-<name>`, its processes are named after it. */
  name: string;
  /** The control plane whose etcd and PKI the region shares. */
  controlPlane: Pick<ControlPlane, 'etcdUrl' | 'pki' | 'dir'>;
  /** Where its processes run and log. */
  group: ProcessGroup;
  /** Where the kubeconfig goes; defaults to `<control plane dir>/regions/<name>/kubeconfig`. */
  kubeconfigPath?: string;
  /** Start a kube-controller-manager for this API too. Default true. */
  controllerManager?: boolean;
  /** More kube-apiserver flags (a test's `--watch-cache=false`). */
  kubeApiserverArgs?: string[];
  /** Where its objects live in etcd; default {@link regionEtcdPrefix} of its name. */
  etcdPrefix?: string;
  supervisor?: Supervisor;
}

/** A running region API. */
export interface RegionApi {
  name: string;
  /** Where its objects live in etcd. */
  etcdPrefix: string;
  apiServerUrl: string;
  kubeconfigPath: string;
}

/** The etcd prefix of the region `name`'s objects (the home region keeps kube-apiserver's default). */
export function regionEtcdPrefix(name: string): string {
  return `/registry-${name}`;
}

/** Starts the region's kube-apiserver (and controller manager), applies the CRDs, writes its kubeconfig. */
export async function startRegionApi(opts: RegionApiOptions): Promise<RegionApi> {
  const { name, controlPlane, group } = opts;
  const dir = join(controlPlane.dir, 'regions', name);
  const kubeconfigPath = opts.kubeconfigPath ?? join(dir, 'kubeconfig');
  const etcdPrefix = opts.etcdPrefix ?? regionEtcdPrefix(name);
  await mkdir(dirname(kubeconfigPath), { recursive: true });
  const apiServerUrl = await startKubeApiserver(
    group,
    controlPlane.etcdUrl,
    controlPlane.pki,
    join(dir, 'serving'),
    opts.supervisor,
    {
      name: `kube-apiserver-${name}`,
      etcdPrefix,
      extraArgs: opts.kubeApiserverArgs,
    },
  );
  await writeKubeconfig(kubeconfigPath, apiServerUrl, controlPlane.pki);
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  await Promise.all([
    applyCrds(kc).then(() => untilCustomResourcesServe(kc)),
    opts.controllerManager === false
      ? Promise.resolve()
      : startControllerManager(
          group,
          kubeconfigPath,
          controlPlane.pki,
          opts.supervisor,
          `kube-controller-manager-${name}`,
        ),
  ]);
  return { name, etcdPrefix, apiServerUrl, kubeconfigPath };
}

/**
 * Waits until the new API serves every platform kind: an Established CRD's
 * storage still answers 429 for a moment on a fresh API, and the first
 * request of the API server or the operator would fail on it.
 */
async function untilCustomResourcesServe(kc: KubeConfig, timeoutMs = 30_000): Promise<void> {
  const client = new CustomResourceClient(kc);
  const deadline = Date.now() + timeoutMs;
  for (const kind of Object.keys(PLURALS) as Array<keyof typeof PLURALS>) {
    for (;;) {
      try {
        await client.listEverywhere(kind);
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
}

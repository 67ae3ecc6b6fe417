/**
 * A second region for the tests that ask for one, started on request so the
 * default single-region boot stays as fast as before: another kube-apiserver
 * on the harness's etcd under its own `--etcd-prefix` (../../hack/control-plane/region.ts),
 * with the CRDs applied, and optionally its own engine. The test starts the
 * region's operator itself (with the region's KubeConfig), as it does the home one.
 * Files run side by side and several start a region of the same name (`region-b`), so each
 * start gets an etcd prefix of its own: two files never share a region's objects.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { ProcessGroup } from '../../common/processes.js';
import { ensurePki } from '../../hack/control-plane/pki.js';
import { regionEtcdPrefix, startRegionApi } from '../../hack/control-plane/region.js';
import { startEngine, type EngineProcess } from '../engine/support/engine-process.js';
import { harness, uniqueSuffix } from './env.js';
import { HARNESS_ENV } from './state.js';

/** A running second region. */
export interface TestRegion {
  name: string;
  /** Where its objects live in the harness's etcd (unique to this start). */
  etcdPrefix: string;
  kubeconfigPath: string;
  kc: KubeConfig;
  /** Its engine, when one was asked for. */
  engine: EngineProcess | undefined;
  /** The registry entry of this region (`SVC_REGIONS_JSON`'s shape). */
  entry: { name: string; kubeconfig: string; engineUrl: string };
  stop(): Promise<void>;
}

/**
 * Starts the region `name` on the harness's etcd. `controllerManager` adds a
 * kube-controller-manager (garbage collection) for it; `engine` an engine;
 * `kubeApiserverArgs` more flags for its kube-apiserver.
 */
export async function startTestRegion(
  name: string,
  opts: { controllerManager?: boolean; engine?: boolean; kubeApiserverArgs?: string[] } = {},
): Promise<TestRegion> {
  const etcdUrl = process.env[HARNESS_ENV.etcdUrl];
  if (!etcdUrl) throw new Error(`${HARNESS_ENV.etcdUrl} is not set: run through jest.config.js`);
  const { dir: harnessDir } = harness();
  const dir = await mkdtemp(join(tmpdir(), `svc-region-${name}-`));
  const group = new ProcessGroup(join(dir, 'logs'));
  let engine: EngineProcess | undefined;
  try {
    // The harness's own credentials (reused, not regenerated), so one token reaches both APIs.
    const pki = await ensurePki(join(harnessDir, 'pki'));
    const [api, started] = await Promise.all([
      startRegionApi({
        name,
        controlPlane: { etcdUrl, pki, dir },
        group,
        kubeconfigPath: join(dir, 'kubeconfig'),
        controllerManager: opts.controllerManager ?? false,
        kubeApiserverArgs: opts.kubeApiserverArgs,
        etcdPrefix: regionEtcdPrefix(`${name}-${uniqueSuffix()}`),
      }),
      opts.engine ? startEngine() : Promise.resolve(undefined),
    ]);
    engine = started;
    const kc = new KubeConfig();
    kc.loadFromFile(api.kubeconfigPath);
    return {
      name,
      etcdPrefix: api.etcdPrefix,
      kubeconfigPath: api.kubeconfigPath,
      kc,
      engine,
      entry: {
        name,
        kubeconfig: api.kubeconfigPath,
        engineUrl: engine?.url ?? 'http://127.0.0.1:1',
      },
      stop: async () => {
        await engine?.dispose();
        await group.stopAll();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await engine?.dispose();
    await group.stopAll();
    throw err;
  }
}

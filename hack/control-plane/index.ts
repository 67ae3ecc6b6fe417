/**
 * The local control plane: etcd, kube-apiserver, optionally
 * kube-controller-manager, and FerretDB, all on loopback, with the CRDs
 * applied and a kubeconfig written. Used by `npm start`, the `control-plane`
 * script and the jest harness alike.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { ProcessGroup } from '../../common/processes.js';
import type { Supervisor } from '../lib/supervisor.js';
import {
  startControllerManager,
  startEtcd,
  startFerretDb,
  startKubeApiserver,
} from './components.js';
import { applyCrds } from './crds.js';
import { writeKubeconfig } from './kubeconfig.js';
import { ensurePki, type Pki } from './pki.js';

/** Options of {@link startControlPlane}. */
export interface ControlPlaneOptions {
  /** Holds pki/, etcd/, ferretdb/ and logs/. Reused across starts when it persists. */
  dir: string;
  /** Where the kubeconfig goes; defaults to `<dir>/kubeconfig`. */
  kubeconfigPath?: string;
  /** Start kube-controller-manager too (garbage collection, Jobs, CronJobs). Default true. */
  controllerManager?: boolean;
  /** fsync etcd writes; off for throwaway test data. Default true. */
  durable?: boolean;
  /** FerretDB port; 0 picks a free one. */
  mongoPort?: number;
  /** Progress lines. */
  log?: (line: string) => void;
  /** Restarts a component that exits once started (the single-machine platform's); none by default. */
  supervisor?: Supervisor;
}

/** A running control plane. */
export interface ControlPlane {
  /** The directory it was started in. */
  dir: string;
  kubeconfigPath: string;
  apiServerUrl: string;
  etcdUrl: string;
  mongoUri: string;
  /** Its credentials, which a second region's API (region.ts) shares. */
  pki: Pki;
  processes: ProcessGroup;
  /** Stops every process, last started first. */
  stop(): Promise<void>;
}

/** Starts the control plane; on any failure stops what it started and rethrows. */
export async function startControlPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const log = opts.log ?? (() => undefined);
  const started = Date.now();
  const step = (what: string) =>
    log(`control-plane: ${what} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  await mkdir(opts.dir, { recursive: true });
  const group = new ProcessGroup(join(opts.dir, 'logs'));
  const kubeconfigPath = opts.kubeconfigPath ?? join(opts.dir, 'kubeconfig');
  try {
    const pki = await ensurePki(join(opts.dir, 'pki'));
    const [etcdUrl, mongoUri] = await Promise.all([
      startEtcd(
        group,
        join(opts.dir, 'etcd'),
        { fsync: opts.durable ?? true },
        opts.supervisor,
      ).then((url) => {
        step(`etcd ready at ${url}`);
        return url;
      }),
      startFerretDb(group, join(opts.dir, 'ferretdb'), opts.mongoPort ?? 0, opts.supervisor).then(
        (uri) => {
          step(`FerretDB ready at ${uri}`);
          return uri;
        },
      ),
    ]);
    const apiServerUrl = await startKubeApiserver(
      group,
      etcdUrl,
      pki,
      join(opts.dir, 'pki', 'serving'),
      opts.supervisor,
    );
    step(`kube-apiserver ready at ${apiServerUrl}`);
    await writeKubeconfig(kubeconfigPath, apiServerUrl, pki);
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    await Promise.all([
      applyCrds(kc).then(() => step('CRDs established')),
      opts.controllerManager === false
        ? Promise.resolve()
        : startControllerManager(group, kubeconfigPath, pki, opts.supervisor).then(() =>
            step('kube-controller-manager ready'),
          ),
    ]);
    return {
      dir: opts.dir,
      kubeconfigPath,
      apiServerUrl,
      etcdUrl,
      mongoUri,
      pki,
      processes: group,
      stop: () => group.stopAll(),
    };
  } catch (err) {
    await group.stopAll();
    throw err;
  }
}

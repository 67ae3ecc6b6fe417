/**
 * Starts each real component on loopback: etcd, kube-apiserver,
 * kube-controller-manager and FerretDB. Every function returns once the
 * component answers its readiness probe, or throws with the tail of its log.
 * Given a supervisor, the component is restarted by it when it exits, on the
 * same ports and data, so every port is chosen before the first start.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '../../common/ports.js';
import { httpOk } from '../lib/probe.js';
import { launch, readyLine } from '../../common/component-starter.js';
import type { ProcessGroup } from '../../common/processes.js';
import { startComponent, type Supervisor } from '../lib/supervisor.js';
import { toolPath } from '../lib/tools.js';
import type { Pki } from './pki.js';

/** Starts etcd with its data in `dataDir`; returns its client URL. */
export async function startEtcd(
  group: ProcessGroup,
  dataDir: string,
  opts: { fsync: boolean },
  supervisor?: Supervisor,
): Promise<string> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const clientUrl = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const ready = () => httpOk(`${clientUrl}/health`);
  const etcd = () =>
    launch(group, {
      name: 'etcd',
      command: toolPath('etcd'),
      args: [
        '--name=svc-local',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${clientUrl}`,
        `--advertise-client-urls=${clientUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=svc-local=${peerUrl}`,
        '--listen-metrics-urls=',
        '--log-level=warn',
        // Tests throw their data away; skipping fsync makes them much faster.
        ...(opts.fsync ? [] : ['--unsafe-no-fsync']),
      ],
      readyWhen: { probe: ready },
    });
  await startComponent({ name: 'etcd', group, launch: etcd }, supervisor);
  return clientUrl;
}

/**
 * Starts kube-apiserver against etcd; returns its https URL. A second region's
 * API shares the etcd under its own `etcdPrefix` (the default is kube-apiserver's
 * `/registry`), so the two APIs hold separate objects; `name` tells their logs apart.
 */
export async function startKubeApiserver(
  group: ProcessGroup,
  etcdUrl: string,
  pki: Pki,
  certDir: string,
  supervisor?: Supervisor,
  region: { name?: string; etcdPrefix?: string; extraArgs?: string[] } = {},
): Promise<string> {
  const name = region.name ?? 'kube-apiserver';
  const port = await freePort();
  const url = `https://127.0.0.1:${port}`;
  const ca = await readFile(pki.caCert);
  const ready = () => httpOk(`${url}/readyz`, { ca, token: pki.adminToken });
  const apiserver = () =>
    launch(group, {
      name,
      command: toolPath('kube-apiserver'),
      args: [
        `--etcd-servers=${etcdUrl}`,
        ...(region.etcdPrefix ? [`--etcd-prefix=${region.etcdPrefix}`] : []),
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${port}`,
        `--cert-dir=${certDir}`,
        `--tls-cert-file=${pki.servingCert}`,
        `--tls-private-key-file=${pki.servingKey}`,
        `--client-ca-file=${pki.caCert}`,
        `--token-auth-file=${pki.tokenFile}`,
        // Secrets reach etcd encrypted; every API on this etcd has the same key (pki.ts).
        `--encryption-provider-config=${pki.encryptionConfig}`,
        '--authorization-mode=RBAC',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${pki.serviceAccountPub}`,
        `--service-account-signing-key-file=${pki.serviceAccountKey}`,
        '--service-cluster-ip-range=10.96.0.0/16',
        '--allow-privileged=true',
        // A loopback address is not a valid endpoint for the in-cluster `kubernetes` Service.
        '--endpoint-reconciler-type=none',
        '--profiling=false',
        '--v=0',
        ...(region.extraArgs ?? []),
      ],
      readyWhen: { probe: ready },
    });
  await startComponent({ name, group, launch: apiserver }, supervisor, 90_000);
  return url;
}

/**
 * Starts kube-controller-manager (garbage collector, Jobs, CronJobs, ReplicaSets, namespaces)
 * for the API of `kubeconfig`; `name` tells a second region's apart.
 */
export async function startControllerManager(
  group: ProcessGroup,
  kubeconfig: string,
  pki: Pki,
  supervisor?: Supervisor,
  name = 'kube-controller-manager',
): Promise<void> {
  const port = await freePort();
  // It serves a certificate it generated itself; the probe only needs the answer.
  const ready = () =>
    httpOk(`https://127.0.0.1:${port}/healthz`, { token: pki.adminToken, insecure: true });
  const controllerManager = () =>
    launch(group, {
      name,
      command: toolPath('kube-controller-manager'),
      args: [
        `--kubeconfig=${kubeconfig}`,
        `--authentication-kubeconfig=${kubeconfig}`,
        `--authorization-kubeconfig=${kubeconfig}`,
        '--leader-elect=false',
        '--bind-address=127.0.0.1',
        `--secure-port=${port}`,
        `--cert-dir=${join(pki.dir, name.replace('kube-', ''))}`,
        `--service-account-private-key-file=${pki.serviceAccountKey}`,
        `--root-ca-file=${pki.caCert}`,
        '--use-service-account-credentials=false',
        // Otherwise it creates /usr/libexec/kubernetes/kubelet-plugins on the host.
        `--flex-volume-plugin-dir=${join(pki.dir, '..', 'flexvolume')}`,
        '--v=0',
      ],
      readyWhen: { probe: ready },
    });
  await startComponent({ name, group, launch: controllerManager }, supervisor);
}

/** Starts kube-scheduler for the API of `kubeconfig` (clusters whose pods get nodes). */
export async function startScheduler(
  group: ProcessGroup,
  kubeconfig: string,
  pki: Pki,
  name = 'kube-scheduler',
): Promise<void> {
  const port = await freePort();
  const scheduler = launch(group, {
    name,
    command: toolPath('kube-scheduler'),
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      '--v=0',
    ],
    readyWhen: {
      probe: () =>
        httpOk(`https://127.0.0.1:${port}/healthz`, { token: pki.adminToken, insecure: true }),
    },
  });
  await group.waitReady(scheduler.proc, scheduler.ready, 60_000);
}

/**
 * Starts FerretDB (SQLite backend) with its databases in `stateDir`; returns its MongoDB URI.
 * It listens on 127.0.0.1 only, with no credentials: FerretDB v1 with SQLite authenticates
 * nobody (any user and password are accepted, none are needed), and its experimental SCRAM
 * mode is a flag of `cmd/ferretdb` that the embeddable package we build cannot turn on. What
 * keeps agents out is that loopback is not reachable from their sandbox.
 */
export async function startFerretDb(
  group: ProcessGroup,
  stateDir: string,
  port = 0,
  supervisor?: Supervisor,
): Promise<string> {
  // A fixed port, so a restarted FerretDB is where its clients look for it.
  const listenPort = port || (await freePort());
  let uri = '';
  const announcedUri = readyLine('ferretdb', 'uri');
  const ferretdb = () =>
    launch(group, {
      name: 'ferretdb',
      command: toolPath('ferretdb'),
      args: [
        `--listen-addr=127.0.0.1:${listenPort}`,
        `--state-dir=${stateDir}`,
        '--log-level=warn',
      ],
      // It announces its URI, then accepts connections on the port.
      readyWhen: {
        line: (line) => {
          const announced = announcedUri(line);
          if (announced) uri = announced;
          return announced;
        },
        port: listenPort,
      },
    });
  await startComponent({ name: 'ferretdb', group, launch: ferretdb }, supervisor);
  return uri;
}

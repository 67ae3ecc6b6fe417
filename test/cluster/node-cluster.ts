/**
 * The cluster tests' node: hack/node's real single-node Kubernetes with the images of
 * `hack/images.sh --local` imported, a default StorageClass with a hostPath volume for the
 * engine's claim, and the one extra the README's install asks for, a MongoDB-wire server
 * (FerretDB) at `mongodb.db.svc`. Started once by the global setup; the tests read where it
 * is from {@link clusterState}. One node per machine: it takes over from one `hack/node.sh up`
 * left running.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { devDir, repoRoot, toolsBin } from '../../hack/lib/paths.js';
import { archivesIn, startNode, type NodeCluster } from '../../hack/node/index.js';
import { clearSession } from './platform.js';

const run = promisify(execFile);

/** Where the tests find the node. */
export interface ClusterState {
  kubeconfig: string;
  dir: string;
}

const base = join(devDir, 'cluster-test');
const stateFile = join(base, 'state.json');
/** The images the chart and the Kubernetes driver run, and the cluster's own. */
const IMAGES = [
  'apiserver',
  'operator',
  'engine',
  'builder',
  'runner-python',
  'runner-node',
  'runner-bun',
  'pause',
  'ferretdb',
  'curl',
];

/** The node's StorageClass, one volume for the engine's claim, and FerretDB as `mongodb.db`. */
function extras(volumeDir: string, ferretdbImage: string): string {
  return `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: svc-node-local
  annotations: { storageclass.kubernetes.io/is-default-class: "true" }
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: { name: svc-node-pv0 }
spec:
  capacity: { storage: 10Gi }
  accessModes: [ReadWriteOnce]
  storageClassName: svc-node-local
  persistentVolumeReclaimPolicy: Retain
  hostPath: { path: ${volumeDir}, type: Directory }
---
apiVersion: v1
kind: Namespace
metadata: { name: db }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: mongodb, namespace: db }
spec:
  selector: { matchLabels: { app: mongodb } }
  template:
    metadata: { labels: { app: mongodb } }
    spec:
      securityContext:
        { runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001, seccompProfile: { type: RuntimeDefault } }
      containers:
        - name: ferretdb
          image: ${ferretdbImage}
          imagePullPolicy: Never
          ports: [{ containerPort: 27017 }]
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: [ALL] } }
          volumeMounts: [{ name: data, mountPath: /data }]
          readinessProbe: { tcpSocket: { port: 27017 }, periodSeconds: 1 }
      volumes: [{ name: data, emptyDir: {} }]
---
apiVersion: v1
kind: Service
metadata: { name: mongodb, namespace: db }
spec:
  selector: { app: mongodb }
  ports: [{ port: 27017, targetPort: 27017 }]
`;
}

/** The FerretDB image hack/image-bases.sh made (its tag is FerretDB's version). */
async function ferretdbImage(): Promise<string> {
  const mod = await readFile(join(repoRoot, 'hack', 'tools', 'ferretdb', 'go.mod'), 'utf8');
  const version = /github\.com\/FerretDB\/FerretDB (v\S+)/.exec(mod)?.[1];
  if (!version) throw new Error('no FerretDB version in hack/tools/ferretdb/go.mod');
  return `localhost/svc-test/ferretdb:${version}`;
}

/** Brings the node up with the images and the extras; records where it is. */
export async function bootCluster(): Promise<void> {
  const archives = await archivesIn(join(devDir, 'images'));
  const missing = IMAGES.filter((name) => !archives.some((a) => a.endsWith(`/${name}.tar`)));
  if (missing.length) {
    throw new Error(
      `cluster tests: no image archive for ${missing.join(', ')} in .dev/images: run \`bash hack/images.sh --local\``,
    );
  }
  await clearSession();
  const dir = join(base, 'node');
  const node = await startNode({
    dir,
    images: archives,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  (globalThis as { svcNode?: NodeCluster }).svcNode = node;
  const volumeDir = join(dir, 'volumes', 'pv0');
  await mkdir(volumeDir, { recursive: true, mode: 0o777 });
  await run('chmod', ['0777', volumeDir]);
  const kubectl = join(toolsBin, 'kubectl');
  const manifest = join(dir, 'extras.yaml');
  await writeFile(manifest, extras(volumeDir, await ferretdbImage()));
  await run(kubectl, ['--kubeconfig', node.kubeconfigPath, 'apply', '-f', manifest]);
  await run(kubectl, [
    '--kubeconfig',
    node.kubeconfigPath,
    '-n',
    'db',
    'rollout',
    'status',
    'deploy/mongodb',
    '--timeout=120s',
  ]);
  const state: ClusterState = { kubeconfig: node.kubeconfigPath, dir };
  await writeFile(stateFile, JSON.stringify(state));
}

/** Stops the node and removes it from the host; fails naming what could not be removed. */
export async function stopCluster(): Promise<void> {
  const holder = globalThis as { svcNode?: NodeCluster };
  const node = holder.svcNode;
  holder.svcNode = undefined;
  if (!node) return;
  const problems = await node.stop();
  if (problems.length)
    throw new Error(`the node left traces on the host:\n  ${problems.join('\n  ')}`);
}

/** Where the running node is (for the test files). */
export async function clusterState(): Promise<ClusterState> {
  if (!existsSync(stateFile))
    throw new Error('the cluster tests run through `npm run test:cluster`');
  return JSON.parse(await readFile(stateFile, 'utf8')) as ClusterState;
}

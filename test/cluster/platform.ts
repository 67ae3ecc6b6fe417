/**
 * The cluster tests' kit: the platform as the README installs it on the real node
 * (node-cluster.ts), reached the way a user and a cluster admin reach it. The install file
 * (01-install.test.ts) records where the platform answers and the first key in a session
 * file; the later files read it with {@link session}. bench/cluster-path.ts uses the same kit.
 */
import { CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { devDir, repoRoot, toolsBin } from '../../hack/lib/paths.js';
import { makeArchive } from '../factories/archives.js';
import { getThroughEdge } from '../factories/edge-request.js';
import { kubeChanges, resourceChanges, waitFor } from '../harness/wait.js';

const run = promisify(execFile);

/** Where the installed platform answers, and the first account and key. */
export interface Session {
  kubeconfig: string;
  /** The API server Service's ports: the control plane, the vector plane and the edge. */
  apiUrl: string;
  vectorsUrl: string;
  edgeUrl: string;
  account: string;
  key: string;
}

const sessionFile = join(devDir, 'cluster-test', 'session.json');

/** Records the install's session for the files after it. */
export async function saveSession(s: Session): Promise<void> {
  await writeFile(sessionFile, JSON.stringify(s));
}

/** Forgets an earlier run's session (before the node comes up). */
export async function clearSession(): Promise<void> {
  await rm(sessionFile, { force: true });
}

/** The session the install file recorded. */
export async function session(): Promise<Session> {
  if (!existsSync(sessionFile))
    throw new Error('the platform is not installed: 01-install.test.ts runs first');
  return JSON.parse(await readFile(sessionFile, 'utf8')) as Session;
}

/** A kube client as the node's admin. */
export function adminKube(kubeconfig: string): { kc: KubeConfig; core: CoreV1Api } {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return { kc, core: kc.makeApiClient(CoreV1Api) };
}

/** Runs `script` with bash as a cluster admin would: kubectl and helm on PATH, the node's kubeconfig. */
export async function asAdmin(kubeconfig: string, script: string): Promise<string> {
  const { stdout } = await run('timeout', ['300', 'bash', '-e', '-c', script], {
    cwd: repoRoot,
    env: {
      PATH: `${toolsBin}:${process.env.PATH}`,
      HOME: process.env.HOME,
      KUBECONFIG: kubeconfig,
    },
    maxBuffer: 16 << 20,
  });
  return stdout;
}

/** The sh blocks of the README section `heading`, in order. */
export async function readmeBlocks(heading: string): Promise<string[]> {
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** An answer of the platform's REST API. */
export interface Answer<T> {
  status: number;
  body: T;
}

/** A request to `base` with the key; JSON in and out, or a gzip archive in. */
export async function call<T = Record<string, unknown>>(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  archive?: Buffer,
): Promise<Answer<T>> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (archive) headers['content-type'] = 'application/gzip';
  else if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: archive ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
}

/** The control plane as the first key's owner. */
export function controlPlane(s: Session) {
  return <T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    archive?: Buffer,
  ) => call<T>(s.apiUrl, s.key, method, path, body, archive);
}

/** GETs an agent's URL through the edge Service, with the agent's Host. */
export function viaEdge(s: Session, url: string): Promise<{ status: number; text: string }> {
  const edge = new URL(s.edgeUrl);
  return getThroughEdge(url, edge.hostname, Number(edge.port));
}

/** The account's namespace, where its agents' workloads run. */
export function accountNamespace(s: Session): string {
  return `svc-live-${s.account}`;
}

/** An example's files, as a user's archive has them. */
export async function example(name: string): Promise<Record<string, string>> {
  const dir = join(repoRoot, 'examples', name);
  const out: Record<string, string> = {};
  for (const file of await readdir(dir)) out[file] = await readFile(join(dir, file), 'utf8');
  return out;
}

/** Deploys `files` as agent `name` and waits for the version to be active; its deployment. */
export async function deployed(
  s: Session,
  kc: KubeConfig,
  name: string,
  files: Record<string, string>,
): Promise<{ id: string; state: string }> {
  const api = controlPlane(s);
  const res = await api<{ id: string }>(
    'POST',
    `/api/v1/agents/${name}/deploy`,
    undefined,
    await makeArchive(files),
  );
  if (res.status !== 202)
    throw new Error(`deploy of ${name} answered ${res.status}: ${JSON.stringify(res.body)}`);
  const id = res.body.id;
  return waitFor(
    `deployment ${id} of ${name} to become active`,
    async () => {
      const d = (
        await api<{ id: string; state: string; error_message: string | null }>(
          'GET',
          `/api/v1/deployments/${id}`,
        )
      ).body;
      if (d.state === 'failed') throw new Error(`deployment of ${name} failed: ${d.error_message}`);
      return d.state === 'active' ? d : undefined;
    },
    { timeoutMs: 180_000, wakeOn: resourceChanges(kc, 'AgentDeployment', accountNamespace(s)) },
  );
}

/** The agent's URL, once it has one. */
export async function agentUrl(s: Session, name: string): Promise<string> {
  const api = controlPlane(s);
  return waitFor(`${name}'s URL`, async () => {
    const a = (await api<{ url: string | null }>('GET', `/api/v1/agents/${name}`)).body;
    return a.url ?? undefined;
  });
}

/**
 * The agent's first 200 through the edge (retried while it is not reachable yet, for
 * `timeoutMs`; a wake the edge holds counts its own 30 s within it).
 */
export async function answerThroughEdge(
  s: Session,
  name: string,
  timeoutMs = 30_000,
): Promise<string> {
  const url = await agentUrl(s, name);
  let last: unknown;
  const reply = await waitFor(
    `${name} to answer through the edge`,
    async () => {
      const r = await viaEdge(s, url).catch((err: unknown) => ({ error: String(err) }));
      last = 'status' in r ? { status: r.status, text: r.text.slice(0, 300) } : r;
      return 'status' in r && r.status === 200 ? r : undefined;
    },
    { timeoutMs, lastSeen: () => last },
  );
  return reply.text;
}

/** The namespace whose Pod Security admission enforces "restricted", for {@link restrictedRefusal}. */
const RESTRICTED_NS = 'psa-restricted-check';

/**
 * Why the Pod Security admission of the real kube-apiserver refuses `pod` at the "restricted"
 * level ('' when it admits it): a server-side dry run of its spec in a namespace that enforces
 * the level. The spec is the pod's own, with only what ties it to its namespace changed (its
 * service account, whose token volume admission adds again).
 */
export async function restrictedRefusal(core: CoreV1Api, pod: V1Pod): Promise<string> {
  await core
    .createNamespace({
      body: {
        metadata: {
          name: RESTRICTED_NS,
          labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
        },
      },
    })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  const spec = structuredClone(pod.spec!);
  const token = spec.volumes?.find((v) => v.name.startsWith('kube-api-access-'))?.name;
  spec.volumes = spec.volumes?.filter((v) => v.name !== token);
  for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
    c.volumeMounts = c.volumeMounts?.filter((m) => m.name !== token);
  }
  spec.serviceAccountName = 'default';
  spec.serviceAccount = undefined;
  spec.nodeName = undefined;
  try {
    await core.createNamespacedPod({
      namespace: RESTRICTED_NS,
      dryRun: 'All',
      body: { metadata: { generateName: 'check-' }, spec },
    });
    return '';
  } catch (err) {
    const body = (err as { body?: string }).body;
    return body ? ((JSON.parse(body) as { message?: string }).message ?? body) : String(err);
  }
}

/** The MongoDB the cluster tests give the chart: FerretDB on the node (node-cluster.ts). */
export const NODE_MONGODB_URI = 'mongodb://mongodb.db.svc:27017/svc';

/**
 * The README's install block as written, its one placeholder (the MongoDB URI, "yours" in the
 * README) replaced with the node's, and `extra` flags appended.
 */
export async function readmeInstall(extra = ''): Promise<string> {
  const [install] = await readmeBlocks('Install on a cluster');
  if (!install?.includes('helm install svc charts/svc'))
    throw new Error('the README\'s "Install on a cluster" no longer starts with its helm install');
  const uri = /mongodb\.uri='([^']+)'/.exec(install)?.[1];
  if (!uri) throw new Error("the README's install sets no mongodb.uri");
  return `${install.replace(uri, NODE_MONGODB_URI).trim()} ${extra}`.trim();
}

/** The API server Service's three front doors as the node reaches them. */
export async function frontDoors(
  core: CoreV1Api,
): Promise<Pick<Session, 'apiUrl' | 'vectorsUrl' | 'edgeUrl'>> {
  const service = await core.readNamespacedService({
    name: 'svc-apiserver',
    namespace: 'svc-system',
  });
  const ip = service.spec?.clusterIP;
  if (!ip) throw new Error('the svc-apiserver Service has no cluster IP');
  return {
    apiUrl: `http://${ip}:8000`,
    vectorsUrl: `http://${ip}:8001`,
    edgeUrl: `http://${ip}:8002`,
  };
}

/**
 * The README's first-key commands as written (its placeholders filled in): the account made,
 * the key created, and the curl that lists agents with it (its output).
 */
export async function readmeFirstKey(
  kubeconfig: string,
  apiUrl: string,
): Promise<{ account: string; key: string; listed: unknown }> {
  const [, firstKey] = await readmeBlocks('Install on a cluster');
  const lines = firstKey!
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter(Boolean);
  const made = JSON.parse(await asAdmin(kubeconfig, lines[0]!)) as { _id: string };
  const created = JSON.parse(
    await asAdmin(kubeconfig, lines[1]!.replace('<the _id printed>', made._id)),
  ) as { text: string };
  const curl = lines[2]!.replace('<key>', created.text).replace('https://api.example.com', apiUrl);
  return {
    account: made._id,
    key: created.text,
    listed: JSON.parse(await asAdmin(kubeconfig, curl)),
  };
}

/** Waits for every platform pod of the release to be Ready (at least `atLeast` of them). */
export async function platformReady(
  kc: KubeConfig,
  core: CoreV1Api,
  atLeast = 5,
): Promise<V1Pod[]> {
  return waitFor(
    `every platform pod Ready (at least ${atLeast})`,
    async () => {
      const items = (await core.listNamespacedPod({ namespace: 'svc-system' })).items;
      const ready = items.filter((p) =>
        p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length >= atLeast && ready.length === items.length ? items : undefined;
    },
    { timeoutMs: 180_000, wakeOn: kubeChanges(kc, '/api/v1/namespaces/svc-system/pods') },
  );
}

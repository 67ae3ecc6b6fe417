/**
 * Runs the helm binary built with the tools against charts/svc: lint, render
 * (`helm template`) into parsed objects, and the value sets the chart tests
 * share. Rendering needs no cluster; the Kubernetes version is the harness's.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../../hack/lib/paths.js';
import { toolPath } from '../../hack/lib/tools.js';

const run = promisify(execFile);

/** The chart under test. */
export const chartDir = join(repoRoot, 'charts', 'svc');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;
/** A rendered manifest: any Kubernetes object, its body read loosely. */
export type Manifest = KubernetesObject & {
  spec?: Loose;
  data?: Record<string, string>;
  rules?: Loose;
};

/** What a helm command printed, and whether it succeeded. */
export interface HelmResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/** Runs helm with `args` (and `env` added); never throws on a non-zero exit. */
export async function helm(args: string[], env: NodeJS.ProcessEnv = {}): Promise<HelmResult> {
  try {
    const { stdout, stderr } = await run(toolPath('helm'), args, {
      env: { ...process.env, HELM_CACHE_HOME: join(tmpdir(), 'svc-helm-cache'), ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { ok: true, stdout, stderr };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, stdout: e.stdout ?? '', stderr: e.stderr ?? String(err) };
  }
}

/** Runs `fn` with `values` written to a temporary values file; removes it afterwards. */
export async function withValuesFile<T>(values: object, fn: (path: string) => Promise<T>) {
  const dir = await mkdtemp(join(tmpdir(), 'svc-chart-'));
  try {
    const path = join(dir, 'values.json');
    await writeFile(path, JSON.stringify(values));
    return await fn(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `helm lint` of the chart with `values`. */
export function lintChart(values: object): Promise<HelmResult> {
  return withValuesFile(values, (file) => helm(['lint', chartDir, '--strict', '-f', file]));
}

/** `helm template` of the chart with `values`, as text (ok false with helm's error). */
export function renderText(values: object, namespace = 'svc-system'): Promise<HelmResult> {
  return withValuesFile(values, (file) =>
    helm(['template', 'svc', chartDir, '--namespace', namespace, '-f', file]),
  );
}

/** The objects `helm template` renders with `values`; throws with helm's message on failure. */
export async function renderChart(values: object, namespace = 'svc-system'): Promise<Manifest[]> {
  const result = await renderText(values, namespace);
  if (!result.ok) throw new Error(`helm template failed: ${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((doc): doc is Manifest => doc !== null);
}

/** The one object of `kind` named `name` in `objects`; throws when it is not there. */
export function find(objects: Manifest[], kind: string, name: string): Manifest {
  const found = objects.find((o) => o.kind === kind && o.metadata?.name === name);
  if (!found) throw new Error(`no ${kind} ${name} among ${objects.map(describe).join(', ')}`);
  return found;
}

/** `Kind/name`, for messages. */
export function describe(object: Manifest): string {
  return `${object.kind}/${object.metadata?.name}`;
}

/** The smallest values an install needs: where MongoDB is. */
export const baseValues = { mongodb: { uri: 'mongodb://mongodb.db.svc:27017/svc' } };

/** A 48-character key for values that need one. */
export const sampleKey = 'k3y-for-the-chart-tests-0123456789-abcdefghijklmn';

/** The value sets every chart test covers: each a way a cluster admin installs the chart. */
export const valueMatrix: Record<string, object> = {
  defaults: baseValues,
  'external Qdrant': {
    ...baseValues,
    engine: { enabled: false },
    externalQdrant: { url: 'https://qdrant.example.com:6333' },
    secrets: { engineApiKey: sampleKey },
  },
  'CRDs off': { ...baseValues, crds: { enabled: false, keep: true } },
  'NetworkPolicy and Ingress on': {
    ...baseValues,
    networkPolicy: { enabled: true },
    ingress: { enabled: true, tls: [{ secretName: 'svc-tls', hosts: ['api.example.com'] }] },
  },
  'two regions': {
    ...baseValues,
    regions: [
      { name: 'us', publicUrl: 'https://api.us.example.com' },
      {
        name: 'eu',
        kubeconfigSecret: { name: 'region-eu-kubeconfig', key: 'config' },
        engineUrl: 'https://engine.eu.example.com',
      },
    ],
  },
};

/**
 * Every manifest the chart renders, for every value set of the matrix, is
 * accepted by the harness's real kube-apiserver in a server-side dry run:
 * real schemas with strict field validation, admission, and the CRDs' own
 * structural schemas. Nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { toolPath } from '../../hack/lib/tools.js';
import { createNamespace, harness, kubeConfig } from '../harness/env.js';
import { describe as name, renderChart, valueMatrix, type Manifest } from './helm.js';

const run = promisify(execFile);
let kc: KubeConfig;
let namespace: string;

/** `kubectl apply --server-side --dry-run=server` of `objects`; resolves to what kubectl printed. */
async function dryRunApply(objects: Manifest[]): Promise<string> {
  const input = objects.map((o) => stringify(o)).join('---\n');
  const child = run(
    toolPath('kubectl'),
    [
      '--kubeconfig',
      harness().kubeconfigPath,
      'apply',
      '--server-side',
      '--force-conflicts',
      '--field-manager=chart-dry-run',
      '--dry-run=server',
      '--validate=strict',
      '-f',
      '-',
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  child.child.stdin?.end(input);
  const { stdout } = await child;
  return stdout;
}

beforeAll(async () => {
  kc = kubeConfig();
  namespace = await createNamespace(kc, 'chart');
});

afterAll(async () => {
  await kc.makeApiClient(CoreV1Api).deleteNamespace({ name: namespace });
});

describe('server-side dry run against the real kube-apiserver', () => {
  it.each(Object.entries(valueMatrix))('accepts every manifest (%s)', async (_label, values) => {
    const objects = await renderChart(values, namespace);
    const printed = await dryRunApply(objects);
    const accepted = printed.split('\n').filter((line) => line.includes('(server dry run)'));
    expect(accepted.length).toBe(objects.length);
    for (const object of objects) {
      const kind = (object.kind ?? '').toLowerCase();
      expect(printed).toContain(`/${object.metadata?.name} serverside-applied (server dry run)`);
      expect(printed).toMatch(new RegExp(`^${kind}[./]`, 'm'));
    }
    expect(objects.map(name)).toContain('Deployment/svc-operator');
  });

  it('refuses a manifest with a field the schema does not know (the check is real)', async () => {
    const objects = await renderChart(valueMatrix.defaults!, namespace);
    const operator = objects.find((o) => name(o) === 'Deployment/svc-operator')!;
    operator.spec.template.spec.containers[0].imagePullPolicyy = 'Always';
    await expect(dryRunApply([operator])).rejects.toThrow(
      /imagePullPolicyy: field not declared in schema/,
    );
  });
});

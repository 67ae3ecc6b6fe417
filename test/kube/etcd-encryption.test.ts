/**
 * Secret values are encrypted in etcd: a Secret written through the
 * Kubernetes API (the home one and a second region's, which share one etcd
 * and one key) is read straight from etcd and found sealed, never in clear;
 * a Secret stored in clear before encryption was turned on stays readable.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { ENCRYPTION_KEY_NAME } from '../../hack/control-plane/encryption.js';
import { startControlPlane } from '../../hack/control-plane/index.js';
import { createNamespace, harness, kubeConfig } from '../harness/env.js';
import { startTestRegion, type TestRegion } from '../harness/regions.js';
import { HARNESS_ENV } from '../harness/state.js';

/** kube-apiserver's default `--etcd-prefix`, which the home API keeps. */
const HOME_PREFIX = '/registry';
const SEALED = `k8s:enc:secretbox:v1:${ENCRYPTION_KEY_NAME}:`;

let region: TestRegion;

beforeAll(async () => {
  region = await startTestRegion('region-enc');
}, 120_000);

afterAll(async () => {
  await region?.stop();
});

function etcdUrl(): string {
  const url = process.env[HARNESS_ENV.etcdUrl];
  if (!url) throw new Error(`${HARNESS_ENV.etcdUrl} is not set: run through jest.config.js`);
  return url;
}

/** The bytes etcd holds at `key`, through its v3 JSON gateway; undefined when absent. */
async function etcdGet(key: string): Promise<Buffer | undefined> {
  const res = await fetch(`${etcdUrl()}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: Buffer.from(key).toString('base64') }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { kvs?: { value?: string }[] };
  const value = body.kvs?.[0]?.value;
  return value === undefined ? undefined : Buffer.from(value, 'base64');
}

async function etcdPut(key: string, value: Buffer): Promise<void> {
  const res = await fetch(`${etcdUrl()}/v3/kv/put`, {
    method: 'POST',
    body: JSON.stringify({
      key: Buffer.from(key).toString('base64'),
      value: value.toString('base64'),
    }),
  });
  expect(res.status).toBe(200);
}

/** A value no other test writes, and forms it could take in etcd if it were in clear. */
function distinctiveValue(): { value: string; forms: string[] } {
  const value = `etcd-clear-check-${randomBytes(12).toString('hex')}`;
  return { value, forms: [value, Buffer.from(value).toString('base64')] };
}

/** Writes a Secret with `value` under `data` and `stringData`; returns where etcd keeps it. */
async function writeSecret(kc: KubeConfig, prefix: string, value: string) {
  const namespace = await createNamespace(kc, 'etcd-enc');
  const name = 'api-token';
  await kc.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace,
    body: {
      metadata: { name },
      data: { API_TOKEN: Buffer.from(value).toString('base64') },
      stringData: { OTHER_TOKEN: value },
    },
  });
  return { namespace, name, etcdKey: `${prefix}/secrets/${namespace}/${name}` };
}

function expectSealed(stored: Buffer | undefined, forms: string[]): void {
  expect(stored).toBeDefined();
  expect(stored!.subarray(0, SEALED.length).toString()).toBe(SEALED);
  for (const form of forms) expect(stored!.includes(form)).toBe(false);
}

describe('Secrets in etcd', () => {
  it('keeps the key in a file only its owner can read', async () => {
    const path = join(harness().dir, 'pki', 'encryption-config.yaml');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('are sealed by the home API and read back in clear through it', async () => {
    const kc = kubeConfig();
    const { value, forms } = distinctiveValue();
    const { namespace, name, etcdKey } = await writeSecret(kc, HOME_PREFIX, value);
    expectSealed(await etcdGet(etcdKey), forms);
    const read = await kc.makeApiClient(CoreV1Api).readNamespacedSecret({ name, namespace });
    expect(Buffer.from(read.data!.API_TOKEN!, 'base64').toString()).toBe(value);
    expect(Buffer.from(read.data!.OTHER_TOKEN!, 'base64').toString()).toBe(value);
  });

  it("are sealed by a second region's API on the same etcd", async () => {
    const { value, forms } = distinctiveValue();
    const { namespace, name, etcdKey } = await writeSecret(region.kc, region.etcdPrefix, value);
    expectSealed(await etcdGet(etcdKey), forms);
    const read = await region.kc.makeApiClient(CoreV1Api).readNamespacedSecret({ name, namespace });
    expect(Buffer.from(read.data!.API_TOKEN!, 'base64').toString()).toBe(value);
  });

  it('written in clear before encryption was turned on stay readable', async () => {
    const kc = kubeConfig();
    const namespace = await createNamespace(kc, 'etcd-enc');
    const { value } = distinctiveValue();
    // What an API without an EncryptionConfiguration would have stored (JSON, in clear).
    const clear = {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: {
        name: 'from-before',
        namespace,
        uid: randomUUID(),
        creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      },
      data: { API_TOKEN: Buffer.from(value).toString('base64') },
      type: 'Opaque',
    };
    await etcdPut(
      `${HOME_PREFIX}/secrets/${namespace}/from-before`,
      Buffer.from(JSON.stringify(clear)),
    );
    const read = await kc
      .makeApiClient(CoreV1Api)
      .readNamespacedSecret({ name: 'from-before', namespace });
    expect(Buffer.from(read.data!.API_TOKEN!, 'base64').toString()).toBe(value);
  });
});

describe('a restarted control plane', () => {
  it('keeps its key and reads the Secrets it sealed before', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-etcd-enc-'));
    const start = () => startControlPlane({ dir, durable: false, controllerManager: false });
    const client = (kubeconfigPath: string) => {
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfigPath);
      return kc;
    };
    const { value } = distinctiveValue();
    try {
      const first = await start();
      let written: Awaited<ReturnType<typeof writeSecret>>;
      let config: string;
      try {
        written = await writeSecret(client(first.kubeconfigPath), HOME_PREFIX, value);
        config = await readFile(first.pki.encryptionConfig, 'utf8');
      } finally {
        await first.stop();
      }
      const second = await start();
      try {
        expect(await readFile(second.pki.encryptionConfig, 'utf8')).toBe(config);
        const read = await client(second.kubeconfigPath)
          .makeApiClient(CoreV1Api)
          .readNamespacedSecret({ name: written.name, namespace: written.namespace });
        expect(Buffer.from(read.data!.API_TOKEN!, 'base64').toString()).toBe(value);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

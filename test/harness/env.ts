/**
 * What tests use to reach the real components that global setup started:
 * addresses, a KubeConfig, a fresh namespace, a MongoDB database of their own.
 */
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { MongoClient, type Db } from 'mongodb';
import { HARNESS_ENV } from './state.js';

/** Addresses of the running components. */
export interface Harness {
  dir: string;
  kubeconfigPath: string;
  mongoUri: string;
  kubeApiServerUrl: string;
}

/** The components' addresses; throws when the tests run without the global setup. */
export function harness(): Harness {
  const get = (name: string) => {
    const value = process.env[name];
    if (!value)
      throw new Error(`${name} is not set: run the tests through jest.config.js (global setup)`);
    return value;
  };
  return {
    dir: get(HARNESS_ENV.dir),
    kubeconfigPath: get(HARNESS_ENV.kubeconfig),
    mongoUri: get(HARNESS_ENV.mongoUri),
    kubeApiServerUrl: get(HARNESS_ENV.apiServerUrl),
  };
}

/** A KubeConfig for the harness's kube-apiserver (admin). */
export function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(harness().kubeconfigPath);
  return kc;
}

/** A short random suffix for names that must not collide between tests. */
export function uniqueSuffix(): string {
  return randomBytes(4).toString('hex');
}

/** Creates a namespace of its own for one test file; returns its name. */
export async function createNamespace(kc: KubeConfig, prefix = 'test'): Promise<string> {
  const name = `${prefix}-${uniqueSuffix()}`;
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
}

/**
 * A connected client and a database of its own; close the client in `afterAll`.
 * FerretDB may take seconds to accept a connection on a loaded machine (a CI
 * run saw 5 s pass), so selecting it waits up to 30 s.
 */
export async function mongoDatabase(prefix = 'test'): Promise<{ client: MongoClient; db: Db }> {
  const client = new MongoClient(harness().mongoUri, { serverSelectionTimeoutMS: 30_000 });
  await client.connect();
  return { client, db: client.db(`${prefix}_${uniqueSuffix()}`) };
}

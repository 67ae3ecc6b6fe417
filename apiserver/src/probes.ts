/** Readiness probes of the API server's dependencies. */
import { VersionApi, type KubeConfig } from '@kubernetes/client-node';
import type { MongoClient } from 'mongodb';
import type { DependencyProbe } from './control-plane/routes/health/index.js';

/** MongoDB answers `ping`. */
export function mongoProbe(client: MongoClient): DependencyProbe {
  return {
    name: 'mongodb',
    check: async () => void (await client.db('admin').command({ ping: 1 })),
  };
}

/** The Kubernetes API answers `/version`. */
export function kubernetesProbe(kc: KubeConfig): DependencyProbe {
  const api = kc.makeApiClient(VersionApi);
  return { name: 'kubernetes', check: async () => void (await api.getCode()) };
}

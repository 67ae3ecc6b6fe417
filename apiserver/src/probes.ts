/** Readiness probes of the API server's dependencies, and the platform's component report. */
import { VersionApi, type KubeConfig } from '@kubernetes/client-node';
import type { MongoClient } from 'mongodb';
import { readComponentReport } from '../../common/component-status.js';
import type { ComponentsReporter, DependencyProbe } from './control-plane/routes/health/index.js';

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

/** The report the single-machine platform's supervisor keeps in `file` (read on each call). */
export function platformComponents(file: string): ComponentsReporter {
  return () => readComponentReport(file);
}

/** The Kubernetes client configuration of one region of the registry. */
import { KubeConfig } from '@kubernetes/client-node';
import type { Region } from './registry.js';

/** A KubeConfig for `region`'s API: its kubeconfig file, the cluster the process runs in, or the default lookup. */
export function regionKubeConfig(region: Pick<Region, 'kubernetes'>): KubeConfig {
  const kc = new KubeConfig();
  const api = region.kubernetes;
  if (api.kind === 'kubeconfig') kc.loadFromFile(api.path);
  else if (api.kind === 'in-cluster') kc.loadFromCluster();
  else kc.loadFromDefault();
  return kc;
}

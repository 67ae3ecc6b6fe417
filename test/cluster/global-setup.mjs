// Brings the real node up once for the cluster tests (see node-cluster.ts).
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const { bootCluster } = await tsImport('./node-cluster.ts', import.meta.url);
  await bootCluster();
}

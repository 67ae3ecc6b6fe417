// Stops the real node and removes it from the host, pass or fail.
import { tsImport } from 'tsx/esm/api';

export default async function globalTeardown() {
  const { stopCluster } = await tsImport('./node-cluster.ts', import.meta.url);
  await stopCluster();
}

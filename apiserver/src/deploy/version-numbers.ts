/** Version numbers of an agent's deployments: 1, 2, 3, ... each taken once. */
import type { Collection } from 'mongodb';
import { ServiceUnavailable } from '../errors/catalogue.js';
import type { DeploymentVersionDoc } from '../store/database.js';

/** Takes the next version number of the agent (a unique insert: concurrent deploys never share one). */
export async function allocateVersion(
  versions: Collection<DeploymentVersionDoc>,
  agentId: string,
  deploymentId: string,
): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const [last] = await versions.find({ agentId }).sort({ version: -1 }).limit(1).toArray();
    const version = (last?.version ?? 0) + 1;
    try {
      await versions.insertOne({
        _id: `${agentId}:${version}`,
        agentId,
        version,
        deploymentId,
        createdAt: new Date(),
      });
      return version;
    } catch (err) {
      if ((err as { code?: unknown }).code !== 11000) throw err;
    }
  }
  throw new ServiceUnavailable('Could not allocate a deployment version; retry.');
}

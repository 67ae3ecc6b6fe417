/**
 * Version numbers of an agent's deployments: 1, 2, 3, ... each taken once. The numbers
 * are stored without holes (`agentId:version` keys, none ever deleted), so the last one
 * is found by key lookups (store/sequence-end.ts), not by a sorted query, which FerretDB
 * answers by reading every version of every agent.
 */
import type { Collection } from 'mongodb';
import { ServiceUnavailable } from '../errors/catalogue.js';
import type { DeploymentVersionDoc } from '../store/database.js';
import { sequenceEnd } from '../store/sequence-end.js';

/** Takes the next version number of the agent (a unique insert: concurrent deploys never share one). */
export async function allocateVersion(
  versions: Collection<DeploymentVersionDoc>,
  agentId: string,
  deploymentId: string,
): Promise<number> {
  const exists = async (n: number) =>
    (await versions.findOne({ _id: `${agentId}:${n}` }, { projection: { _id: 1 } })) !== null;
  let last = 0;
  for (let attempt = 0; attempt < 20; attempt++) {
    last = await sequenceEnd(last, exists);
    const version = last + 1;
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

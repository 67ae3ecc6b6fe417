/**
 * Where an account's resources already are, in both environments: the
 * regions of its vector collections (MongoDB) and the placement of its agents
 * (the Agent custom resources of its two namespaces). What a single-region
 * plan's home region must agree with.
 */
import type { Collection } from 'mongodb';
import type { AgentRepository } from '../agents/agent-repository.js';
import { placementOf } from '../regions/placement.js';
import type { VectorCollectionDoc } from '../vector/collections/model.js';
import { tenantNamespace, type AccountDoc, type Environment } from './model.js';
import type { PlacedRegions } from './home-region.js';

const ENVIRONMENTS: readonly Environment[] = ['live', 'test'];

/** A {@link PlacedRegions} reading collections and agents. */
export function placedRegions(
  vectorCollections: Collection<VectorCollectionDoc>,
  agents: Pick<AgentRepository, 'list'>,
): PlacedRegions {
  return async (account: AccountDoc) => {
    const [collectionRegions, ...agentLists] = await Promise.all([
      vectorCollections.distinct('regions', { accountId: account._id }),
      ...ENVIRONMENTS.map((env) => agents.list(tenantNamespace(account._id, env))),
    ]);
    const agentRegions = agentLists.flat().flatMap((a) => placementOf(a, [account.homeRegion]));
    return [...new Set([...(collectionRegions as string[]), ...agentRegions])];
  };
}

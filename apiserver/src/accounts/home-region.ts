/**
 * Changing an account's home region (`PATCH /api/v1/users/me/home-region`):
 * the region new agents, workspaces and collections are placed in when a
 * request names none. The rule is pure and unit-tested; the service reads
 * where the account's resources already are and writes the change.
 */
import type { Tier } from '../../../crds/src/index.js';
import type { AuthContext } from '../auth/authenticate.js';
import { keyAgentScope } from '../auth/authenticate.js';
import {
  AgentKeyForbidden,
  RegionNotAvailable,
  StarterRegionConsistency,
} from '../errors/catalogue.js';
import type { AccountService } from './account-service.js';
import type { AccountDoc } from './model.js';
import type { Plan } from './plans.js';

/** Plans whose resources all live in one region (replication begins at performance). */
export const SINGLE_REGION_TIERS: readonly Tier[] = ['free', 'starter'];

/**
 * Checks `requested` as a new home region. Throws 400 REGION_NOT_AVAILABLE for
 * a region the registry does not offer (carries `allowed`), and 422
 * STARTER_REGION_CONSISTENCY when a single-region plan already holds resources
 * in another region (carries `existing_regions`): on those plans the first
 * resource created fixes the region, and the home region may not disagree.
 */
export function checkHomeRegion(
  requested: string,
  offered: readonly string[],
  plan: Pick<Plan, 'tier'>,
  placedRegions: readonly string[],
): void {
  if (!offered.includes(requested)) {
    throw new RegionNotAvailable(`Region ${requested} is not offered here.`, {
      fields: { field: 'home_region', allowed: [...offered] },
    });
  }
  const elsewhere = [...new Set(placedRegions)].filter((r) => r !== requested);
  if (SINGLE_REGION_TIERS.includes(plan.tier) && elsewhere.length > 0) {
    throw new StarterRegionConsistency(
      `The ${plan.tier} plan keeps every resource in one region, and this account's are in ${elsewhere.join(', ')}; move them first or change plan.`,
      { fields: { field: 'home_region', existing_regions: [...new Set(placedRegions)] } },
    );
  }
}

/** Where an account's resources are placed, across both environments. */
export type PlacedRegions = (account: AccountDoc) => Promise<string[]>;

/** Changes home regions. */
export class HomeRegionService {
  constructor(
    private readonly accounts: Pick<AccountService, 'updateAccount'>,
    private readonly offered: readonly string[],
    private readonly placedRegions: PlacedRegions,
  ) {}

  /** Sets the caller's home region and returns the updated account; an agent's key is refused. */
  async change(auth: AuthContext, region: string): Promise<AccountDoc> {
    if (keyAgentScope(auth)) {
      throw new AgentKeyForbidden("An agent's key cannot change the account's home region.");
    }
    if (region === auth.account.homeRegion) return auth.account;
    checkHomeRegion(region, this.offered, auth.plan, await this.placedRegions(auth.account));
    return this.accounts.updateAccount(auth.account._id, { homeRegion: region });
  }
}

/** The account routes: who the key belongs to. */
import type { HomeRegionService } from '../../../accounts/home-region.js';
import { presentMe } from '../../../accounts/me-presenter.js';
import {
  AgentKeyForbidden,
  RegionNotAvailable,
  StarterRegionConsistency,
} from '../../../errors/catalogue.js';
import { route, type AnyRoute } from '../../routing.js';
import { HomeRegionChange } from './schema.js';

/** The account routes. */
export function accountRoutes(homeRegions: HomeRegionService): AnyRoute[] {
  return [
    route({
      method: 'get',
      path: '/api/v1/auth/me',
      operationId: 'getMe',
      summary: 'The account behind the key',
      description:
        "The account the key belongs to: its id and name, the key's environment, the plan and its limits, the subscription status and home region, and the key's public id and prefix. The key itself is never returned (it is not stored). An agent's own key answers too, with key.agent_id set.",
      tag: 'Account',
      responses: { 200: { description: 'The account.', schema: 'Me' } },
      errors: [],
      handler: async (ctx, { auth }) => {
        ctx.body = presentMe(auth);
      },
    }),
    route({
      method: 'patch',
      path: '/api/v1/users/me/home-region',
      operationId: 'setHomeRegion',
      summary: "Change the account's home region",
      description:
        "Sets the region new agents, workspaces and collections are placed in when a request names none; what exists stays where it is. The region must be one GET /api/v1/regions lists (400 REGION_NOT_AVAILABLE). On a single-region plan (free, starter) every resource lives in one region, so the home region may not move away from the region the account's agents or collections are in (422 STARTER_REGION_CONSISTENCY, carrying existing_regions). Setting the current home region again changes nothing. Answers the account record, as GET /api/v1/auth/me does. An agent's own key is refused (403 AGENT_KEY_FORBIDDEN).",
      tag: 'Account',
      body: HomeRegionChange,
      bodySchemaName: 'HomeRegionChange',
      responses: { 200: { description: 'The account, with its new home region.', schema: 'Me' } },
      errors: [RegionNotAvailable, StarterRegionConsistency, AgentKeyForbidden],
      handler: async (ctx, { auth, body }) => {
        const account = await homeRegions.change(auth, body.home_region);
        ctx.body = presentMe({ ...auth, account });
      },
    }),
  ];
}

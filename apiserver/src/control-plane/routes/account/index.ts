/** The account routes: who the key belongs to. */
import { presentMe } from '../../../accounts/me-presenter.js';
import { route, type AnyRoute } from '../../routing.js';

/** The account routes. */
export function accountRoutes(): AnyRoute[] {
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
  ];
}

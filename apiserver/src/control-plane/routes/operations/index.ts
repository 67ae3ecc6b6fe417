/** The operation routes: polling a region change. */
import { keyAgentScope } from '../../../auth/authenticate.js';
import { AgentKeyForbidden, OperationNotFound } from '../../../errors/catalogue.js';
import { presentOperation } from '../../../operations/operation-presenter.js';
import type { OperationStore } from '../../../operations/operation-store.js';
import { route, type AnyRoute } from '../../routing.js';
import { OperationParams } from './schema.js';

/** The operation routes, bound to the store. */
export function operationRoutes(operations: OperationStore): AnyRoute[] {
  return [
    route({
      method: 'get',
      path: '/api/v1/operations/:operation_id',
      operationId: 'getOperation',
      summary: 'Poll a region change',
      description:
        "The state of a region-change operation, with progress per agent and per collection. Operations are kept in the database and outlive an API server restart. Another account's operation is 404 OPERATION_NOT_FOUND; an id that is not a UUID is 422; an agent's own key is 403 AGENT_KEY_FORBIDDEN.",
      tag: 'Workspaces',
      params: OperationParams,
      responses: { 200: { description: 'The operation.', schema: 'Operation' } },
      errors: [OperationNotFound, AgentKeyForbidden],
      handler: async (ctx, { params, auth }) => {
        if (keyAgentScope(auth)) {
          throw new AgentKeyForbidden(
            "An agent's own key cannot read operations; use an account key.",
          );
        }
        const doc = await operations.get(auth.tenant, params.operation_id.toLowerCase());
        if (!doc) {
          throw new OperationNotFound(`No operation ${params.operation_id}.`, {
            fields: { operation_id: params.operation_id },
          });
        }
        ctx.body = presentOperation(doc);
      },
    }),
  ];
}

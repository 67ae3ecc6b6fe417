/** The deployment routes: thin handlers over DeployService, DeploymentService and RollbackCommand. */
import type { DeployService } from '../../../deploy/deploy-service.js';
import type { RollbackCommand } from '../../../deploy/rollback.js';
import type { DeploymentService } from '../../../deploy/deployment-service.js';
import {
  AgentNotFound,
  AgentQuotaExceeded,
  ArchiveTooLarge,
  DeploymentNotCancellable,
  DeploymentNotFound,
  InvalidArchive,
  PlanLimitExceeded,
  RegionNotAvailable,
  RequestTooLarge,
  ResourceBusy,
  RollbackNotAllowed,
  RuntimeImmutable,
  UnsupportedMediaType,
} from '../../../errors/catalogue.js';
import { route, type AnyRoute } from '../../routing.js';
import { AgentParams } from '../agents/schema.js';
import {
  AccountDeploymentListQuery,
  AgentVersionParams,
  CancelBody,
  DeploymentListQuery,
  DeploymentParams,
} from './schema.js';

const TAG = 'Deployments';
const ARCHIVE_TYPES = new Set([
  'application/gzip',
  'application/x-gzip',
  'application/x-tar+gzip',
  'application/octet-stream',
]);

/** The deployment routes, bound to the services. */
export function deploymentRoutes(
  deploy: DeployService,
  deployments: DeploymentService,
  rollback: RollbackCommand,
): AnyRoute[] {
  return [
    route({
      method: 'post',
      path: '/api/v1/agents/:agent/deploy',
      operationId: 'deployAgent',
      summary: "Deploy an agent's code",
      description:
        'The body is the code as a tar.gz archive (Content-Type: application/gzip), streamed, with svc.yaml at its root applied as a merge patch. Returns 202 with the new Deployment; poll GET /api/v1/deployments/{id} for state and error_message. Problems in the code (configuration values, schedule, entry point, Dockerfile) fail the deployment rather than the request. The agent quota of the plan is checked here. The archive may expand only so far, per plan (free: 512 MiB of files in all, 20,000 entries, 100 MiB per file; starter: 1 GiB, 50,000, 256 MiB; performance: 4 GiB, 100,000, 1 GiB; enterprise: 8 GiB, 200,000, 2 GiB): this is checked while the upload streams, and an archive past a limit is refused with 413 ARCHIVE_TOO_LARGE as soon as it passes it, storing nothing.',
      tag: TAG,
      params: AgentParams,
      rawBody: {
        contentType: 'application/gzip',
        description: 'A gzip-compressed tar archive of the project.',
      },
      responses: {
        202: {
          description: 'Accepted; the deployment is queued (or failed).',
          schema: 'Deployment',
        },
      },
      errors: [
        AgentNotFound,
        InvalidArchive,
        UnsupportedMediaType,
        RequestTooLarge,
        ArchiveTooLarge,
        RuntimeImmutable,
        PlanLimitExceeded,
        RegionNotAvailable,
        AgentQuotaExceeded,
        ResourceBusy,
      ],
      handler: async (ctx, { params, auth }) => {
        const type = (ctx.get('content-type') || '').split(';')[0]?.trim().toLowerCase() ?? '';
        if (!ARCHIVE_TYPES.has(type)) {
          throw new UnsupportedMediaType(
            `Send the archive as Content-Type: application/gzip, not "${type || 'none'}".`,
          );
        }
        const deployment = await deploy.deploy(auth, params.agent, ctx.req);
        ctx.status = 202;
        ctx.set('Location', `/api/v1/deployments/${deployment.metadata.name}`);
        ctx.body = await deployments.present(deployment);
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/deployments',
      operationId: 'listDeployments',
      summary: "List the account's deployments",
      description:
        "Deployed versions of every agent (runs are listed per agent under /runs), newest first, offset-paged. With an agent's own key (SVC_API_KEY), only that agent's.",
      tag: TAG,
      query: AccountDeploymentListQuery,
      responses: { 200: { description: 'A page of deployments.', schema: 'DeploymentList' } },
      errors: [],
      handler: async (ctx, { query, auth }) => {
        ctx.body = await deployments.list(auth, { ...query, agentId: query.agent_id });
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/agents/:agent/deployments',
      operationId: 'listAgentDeployments',
      summary: "List an agent's deployments",
      description: 'Deployed versions, newest first, offset-paged.',
      tag: TAG,
      params: AgentParams,
      query: DeploymentListQuery,
      responses: { 200: { description: 'A page of deployments.', schema: 'DeploymentList' } },
      errors: [AgentNotFound],
      handler: async (ctx, { params, query, auth }) => {
        const agent = await deploy.agentOf(auth, params.agent);
        ctx.body = await deployments.list(auth, { ...query, agentId: agent });
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/deployments/:deployment_id',
      operationId: 'getDeployment',
      summary: 'Get a deployment',
      description: 'The one place to read build progress: state and error_message.',
      tag: TAG,
      params: DeploymentParams,
      responses: { 200: { description: 'The deployment.', schema: 'Deployment' } },
      errors: [DeploymentNotFound],
      handler: async (ctx, { params, auth }) => {
        ctx.body = await deployments.present(await deployments.get(auth, params.deployment_id));
      },
    }),
    route({
      method: 'post',
      path: '/api/v1/agents/:agent/deployments/:version/rollback',
      operationId: 'rollbackDeployment',
      summary: 'Roll back to a version',
      description:
        "Deploys that version's stored code and configuration again as the next version; when it is active, the version it replaces becomes rolled_back. Allowed when can_rollback is true.",
      tag: TAG,
      params: AgentVersionParams,
      responses: { 202: { description: 'The new deployment.', schema: 'Deployment' } },
      errors: [
        AgentNotFound,
        DeploymentNotFound,
        RollbackNotAllowed,
        AgentQuotaExceeded,
        ResourceBusy,
      ],
      handler: async (ctx, { params, auth }) => {
        const created = await rollback.run(auth, params.agent, params.version);
        ctx.status = 202;
        ctx.body = await deployments.present(created);
      },
    }),
    route({
      method: 'post',
      path: '/api/v1/agents/:agent/deployments/:version/cancel',
      operationId: 'cancelDeployment',
      summary: 'Cancel a deployment',
      description:
        'Asks for a deployment that has not finished to stop; it ends failed with the reason. The optional body {reason} is recorded as cancellation_reason.',
      tag: TAG,
      params: AgentVersionParams,
      body: CancelBody,
      responses: { 202: { description: 'Cancellation requested.', schema: 'Deployment' } },
      errors: [AgentNotFound, DeploymentNotFound, DeploymentNotCancellable, ResourceBusy],
      handler: async (ctx, { params, body, auth }) => {
        const updated = await deployments.cancel(auth, params.agent, params.version, body?.reason);
        ctx.status = 202;
        ctx.body = await deployments.present(updated);
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/deployments/:deployment_id/payload',
      operationId: 'getRunPayload',
      summary: 'Get the input payload of a run',
      description:
        '{deployment_id, payload}; payload is null for a deployed version or a run started without one.',
      tag: TAG,
      params: DeploymentParams,
      responses: { 200: { description: 'The payload.', schema: 'RunPayload' } },
      errors: [DeploymentNotFound],
      handler: async (ctx, { params, auth }) => {
        ctx.body = await deployments.payload(auth, params.deployment_id);
      },
    }),
  ];
}

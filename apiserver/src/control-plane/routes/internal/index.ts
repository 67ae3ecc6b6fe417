/**
 * The private routes build and agent pods call, authenticated by capability
 * tokens (see common/internal-token.ts), never by API keys: fetch a
 * deployment's code archive, store its build artifact, fetch the artifact.
 * Bodies stream in and out of GridFS.
 */
import * as yup from 'yup';
import { verifyInternalToken, type InternalPurpose } from '../../../../../common/internal-token.js';
import type { ArchiveStore } from '../../../deploy/archive-store.js';
import type { DeploymentLocator } from '../../../deploy/deployment-locator.js';
import {
  DeploymentNotFound,
  InternalTokenInvalid,
  RequestTooLarge,
} from '../../../errors/catalogue.js';
import { route, type AnyRoute } from '../../routing.js';

const Params = yup.object({ id: yup.string().uuid().required() });
const Query = yup.object({ token: yup.string().max(200).optional() });

/** What the internal routes need. */
export interface InternalDeps {
  secret: string;
  locator: DeploymentLocator;
  archives: ArchiveStore;
  artifacts: ArchiveStore;
  maxArtifactBytes: number;
}

/** The internal routes. */
export function internalRoutes(deps: InternalDeps): AnyRoute[] {
  const check = (purpose: InternalPurpose, id: string, token: string | undefined) => {
    if (!token || !verifyInternalToken(deps.secret, purpose, id, token)) {
      throw new InternalTokenInvalid('This route needs its capability token.');
    }
  };
  const common = { tag: 'Internal', authenticated: false, params: Params, query: Query } as const;
  return [
    route({
      ...common,
      method: 'get',
      path: '/internal/deployments/:id/archive',
      operationId: 'internalGetArchive',
      summary: "A deployment's code archive (build pods)",
      responses: { 200: { description: 'tar.gz bytes.', contentType: 'application/gzip' } },
      errors: [InternalTokenInvalid, DeploymentNotFound],
      handler: async (ctx, { params, query }) => {
        check('archive:read', params.id, query.token);
        const deployment = await deps.locator.find(params.id);
        const archiveId = deployment?.spec.archiveId;
        if (!archiveId || !(await deps.archives.exists(archiveId)))
          throw new DeploymentNotFound('No stored archive.');
        ctx.type = 'application/gzip';
        ctx.body = deps.archives.open(archiveId);
      },
    }),
    route({
      ...common,
      method: 'put',
      path: '/internal/deployments/:id/artifact',
      operationId: 'internalPutArtifact',
      summary: "Stores a deployment's build artifact (build pods)",
      rawBody: {
        contentType: 'application/gzip',
        description: 'The built deployment archive (code and dependencies).',
      },
      responses: { 204: { description: 'Stored.' } },
      errors: [InternalTokenInvalid, DeploymentNotFound, RequestTooLarge],
      handler: async (ctx, { params, query }) => {
        check('artifact:write', params.id, query.token);
        if (!(await deps.locator.find(params.id)))
          throw new DeploymentNotFound('No such deployment.');
        const previous = await deps.artifacts.findByName(params.id);
        await deps.artifacts.save(
          ctx.req,
          params.id,
          { deploymentId: params.id },
          deps.maxArtifactBytes,
        );
        if (previous) await deps.artifacts.delete(previous);
        ctx.status = 204;
      },
    }),
    route({
      ...common,
      method: 'get',
      path: '/internal/deployments/:id/artifact',
      operationId: 'internalGetArtifact',
      summary: "A deployment's build artifact (agent pods, at start)",
      responses: { 200: { description: 'tar.gz bytes.', contentType: 'application/gzip' } },
      errors: [InternalTokenInvalid, DeploymentNotFound],
      handler: async (ctx, { params, query }) => {
        check('artifact:read', params.id, query.token);
        const artifactId = await deps.artifacts.findByName(params.id);
        if (!artifactId) throw new DeploymentNotFound('No artifact built for this deployment.');
        ctx.type = 'application/gzip';
        ctx.body = deps.artifacts.open(artifactId);
      },
    }),
  ];
}

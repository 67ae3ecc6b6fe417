/**
 * The code-host routes: the account's Git host and token (`/auth/codehost`,
 * its status, and PUT to set it, which the contract leaves to us) and an
 * agent's link to a repository (`/agents/{agent}/codehost`). The token is
 * never returned; a link's webhook secret only in the answer to the POST
 * that made it.
 */
import type { Context } from 'koa';
import { keyAgentScope, type AuthContext } from '../../../auth/authenticate.js';
import type { CodehostDeps } from '../../../codehost/assemble.js';
import {
  AgentKeyForbidden,
  AgentNotFound,
  CodehostLinkNotFound,
  CodehostNotConnected,
  CodehostUrlNotAllowed,
  ResourceBusy,
  ServiceUnavailable,
} from '../../../errors/catalogue.js';
import { route, type AnyRoute } from '../../routing.js';
import { presentHost, presentLink, presentStatus } from './presenter.js';
import { CodehostAgentParams, CodehostConnect, CodehostLinkCreate } from './schema.js';

const TAG = 'Code host';

/** Where the code host should send an agent's pushes. */
export function webhookUrl(
  ctx: Context,
  publicApiUrl: string | undefined,
  agentId: string,
): string {
  // Koa 3's ctx.origin is the Origin header; the address this request came to is protocol and host.
  const base = publicApiUrl ?? `${ctx.protocol}://${ctx.host}`;
  return `${base.replace(/\/+$/, '')}/api/v1/webhooks/codehost/${agentId}`;
}

/** The code-host services, or 503 when this server was built without them. */
export function codehostDeps(deps: CodehostDeps | undefined): CodehostDeps {
  if (!deps)
    throw new ServiceUnavailable('The code-host feature is not configured on this server.');
  return deps;
}

function accountKeyOnly(auth: AuthContext): void {
  if (keyAgentScope(auth)) {
    throw new AgentKeyForbidden(
      "An agent's own key cannot manage the code host; use an account key.",
    );
  }
}

/**
 * The code-host routes, bound to the services; `deps` is read only when a
 * request comes, so the routes can be listed without them.
 */
export function codehostRoutes(deps: CodehostDeps | undefined): AnyRoute[] {
  const codehost = {
    get service() {
      return codehostDeps(deps).service;
    },
  };
  const urlOf = (ctx: Context, agentId: string) =>
    webhookUrl(ctx, codehostDeps(deps).publicApiUrl, agentId);
  return [
    route({
      method: 'put',
      path: '/api/v1/auth/codehost',
      operationId: 'connectCodehost',
      summary: "Set the account's code host",
      description:
        "Connects a Git host (GitHub, GitLab, Gitea or any Git server over HTTPS) with an access token, replacing any before it. The host must be on the public internet: a URL whose host is, or resolves to, a loopback, private, link-local or reserved address is 400 CODEHOST_URL_NOT_ALLOWED (checked again at every fetch, which connects only to the address checked), unless the installation allows loopback (SVC_CODEHOST_ALLOW_LOOPBACK_HTTP) or private networks (SVC_CODEHOST_ALLOW_PRIVATE_HOSTS). Not in the contract's route list: it is how the host the three /auth/codehost routes read is set. The token is stored in a Kubernetes Secret in the account's namespace and never returned or logged; GET /api/v1/auth/codehost/status checks it. An agent's own key is 403 AGENT_KEY_FORBIDDEN.",
      tag: TAG,
      body: CodehostConnect,
      bodySchemaName: 'CodehostConnect',
      responses: { 200: { description: 'The code host (without its token).', schema: 'Codehost' } },
      errors: [CodehostUrlNotAllowed, AgentKeyForbidden, ResourceBusy],
      handler: async (ctx, { body, auth }) => {
        accountKeyOnly(auth);
        ctx.body = presentHost(await codehost.service.connect(auth, body));
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/auth/codehost',
      operationId: 'getCodehost',
      summary: "The account's code host",
      description:
        'The host, provider and user name; never the token. 404 CODEHOST_NOT_CONNECTED when none is set.',
      tag: TAG,
      responses: { 200: { description: 'The code host.', schema: 'Codehost' } },
      errors: [CodehostNotConnected, AgentKeyForbidden],
      handler: async (ctx, { auth }) => {
        accountKeyOnly(auth);
        ctx.body = presentHost(await codehost.service.host(auth));
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/auth/codehost/status',
      operationId: 'getCodehostStatus',
      summary: 'Whether the code-host token works',
      description:
        "Checks the token now, against the host itself: the user endpoint of GitHub's, GitLab's or Gitea's API, and `git ls-remote` of up to 5 linked repositories (for a plain Git server with no link yet, of the host URL). token_valid is true when every check passed. Not connected: 200 with connected false.",
      tag: TAG,
      responses: { 200: { description: 'The checks.', schema: 'CodehostStatus' } },
      errors: [AgentKeyForbidden],
      handler: async (ctx, { auth }) => {
        accountKeyOnly(auth);
        ctx.body = presentStatus(await codehost.service.status(auth));
      },
    }),
    route({
      method: 'delete',
      path: '/api/v1/auth/codehost',
      operationId: 'disconnectCodehost',
      summary: "Remove the account's code host",
      description:
        'Deletes the token and forgets the host. Agent links stay; their pushes are ignored until a host is connected again.',
      tag: TAG,
      responses: { 204: { description: 'Removed.' } },
      errors: [CodehostNotConnected, AgentKeyForbidden],
      handler: async (ctx, { auth }) => {
        accountKeyOnly(auth);
        await codehost.service.disconnect(auth);
        ctx.status = 204;
      },
    }),
    route({
      method: 'post',
      path: '/api/v1/agents/:agent/codehost',
      operationId: 'linkAgentCodehost',
      summary: 'Link an agent to a repository',
      description:
        "Links the agent to a repository on the account's code host, a branch and an optional subdirectory, replacing any link. Answers 201 with the webhook URL and a new webhook secret, shown this once: configure both on the code host (GitHub/Gitea: content type application/json, secret; GitLab: secret token). A push to the branch then deploys that commit, packed as an upload is (.svcignore and the built-in exclusions honoured). Linking again replaces the secret.",
      tag: TAG,
      params: CodehostAgentParams,
      body: CodehostLinkCreate,
      bodySchemaName: 'CodehostLinkCreate',
      responses: {
        201: { description: 'Linked; webhook_secret is shown only here.', schema: 'CodehostLink' },
      },
      errors: [AgentNotFound, CodehostNotConnected, CodehostUrlNotAllowed, ResourceBusy],
      handler: async (ctx, { params, body, auth }) => {
        const { link, webhookSecret } = await codehost.service.link(auth, params.agent, body);
        ctx.status = 201;
        ctx.body = presentLink(link, urlOf(ctx, link._id), [], webhookSecret);
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/agents/:agent/codehost',
      operationId: 'getAgentCodehost',
      summary: "An agent's repository link",
      description:
        'The link, its webhook URL and the deployments pushes made with their commits; never the webhook secret.',
      tag: TAG,
      params: CodehostAgentParams,
      responses: { 200: { description: 'The link.', schema: 'CodehostLink' } },
      errors: [AgentNotFound, CodehostLinkNotFound],
      handler: async (ctx, { params, auth }) => {
        const link = await codehost.service.getLink(auth, params.agent);
        const deployments = await codehost.service.recentDeployments(link);
        ctx.body = presentLink(link, urlOf(ctx, link._id), deployments);
      },
    }),
    route({
      method: 'delete',
      path: '/api/v1/agents/:agent/codehost',
      operationId: 'unlinkAgentCodehost',
      summary: 'Unlink an agent',
      description: 'Removes the link and its webhook secret; later deliveries are 401.',
      tag: TAG,
      params: CodehostAgentParams,
      responses: { 204: { description: 'Unlinked.' } },
      errors: [AgentNotFound, CodehostLinkNotFound],
      handler: async (ctx, { params, auth }) => {
        await codehost.service.unlink(auth, params.agent);
        ctx.status = 204;
      },
    }),
  ];
}

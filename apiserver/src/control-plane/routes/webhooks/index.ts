/**
 * The two webhook routes the code host calls. They take no API key: the
 * signature over the raw body is their only authentication (webhook-service
 * checks it before anything else), each is capped in body size before the
 * body is read, and signed deliveries are rate-limited per link (unsigned or
 * forged ones are 401 and spend no link's budget).
 */
import type { Context } from 'koa';
import type { CodehostDeps } from '../../../codehost/assemble.js';
import type { WebhookOutcome } from '../../../codehost/webhook-service.js';
import {
  ArchiveTooLarge,
  CodehostFetchFailed,
  JsonBodyRequired,
  RateLimitExceeded,
  RequestTooLarge,
  ServiceUnavailable,
  ValidationFailed,
  WebhookSignatureInvalid,
} from '../../../errors/catalogue.js';
import { evaluateWindow } from '../../../rate-limit/sliding-window.js';
import { route, type AnyRoute } from '../../routing.js';
import { codehostDeps } from '../codehost/index.js';
import { readRawBody } from './raw-body.js';
import { WebhookParams } from './schema.js';

const TAG = 'Code host';
const ERRORS = [
  WebhookSignatureInvalid,
  ValidationFailed,
  JsonBodyRequired,
  RequestTooLarge,
  ArchiveTooLarge,
  RateLimitExceeded,
  CodehostFetchFailed,
  ServiceUnavailable,
];
const RESPONSES = {
  200: {
    description: 'A replayed delivery (duplicate) or a ping (pong): nothing done.',
    schema: 'WebhookResult',
  },
  202: { description: 'Deployed, or ignored (another branch or event).', schema: 'WebhookResult' },
};

/** The webhook routes; `bundle` is read only when a delivery comes. */
export function webhookRoutes(bundle: CodehostDeps | undefined, now?: () => number): AnyRoute[] {
  const handle = async (ctx: Context, agentId: string | null) => {
    const deps = codehostDeps(bundle);
    const body = await readRawBody(ctx, deps.webhookMaxBodyBytes);
    // Limited per link once the signature holds: a flood of unsigned or forged deliveries
    // (401s) spends nobody's budget, on either route.
    const outcome = await deps.webhooks.handle(agentId, ctx.req.headers, body, (linked) =>
      rateLimit(deps, `wh:${linked}`, now),
    );
    ctx.status = outcome.status === 'duplicate' || outcome.status === 'pong' ? 200 : 202;
    ctx.body = present(outcome);
  };
  return [
    route({
      method: 'post',
      path: '/api/v1/webhooks/codehost/:agent_id',
      operationId: 'codehostWebhookForAgent',
      summary: 'Code-host push webhook of one agent',
      description:
        "The URL a link's answer gives. Authenticated only by signature with the link's webhook secret: GitHub's X-Hub-Signature-256 (sha256=HMAC-SHA256 of the raw body), Gitea's X-Gitea-Signature (the same HMAC in hex) or GitLab's X-Gitlab-Token (the secret itself); anything else is 401 and nothing happens. A push to the linked branch fetches that commit with git, packs it honouring .svcignore and deploys it (202, deployed, with the deployment id); a push elsewhere or another event is 202 ignored; a delivery id seen before is 200 duplicate and does nothing. The commit's whole tree (a fetch checks all of it out) must stay within the plan's archive limits, measured before checkout: past one, 413 ARCHIVE_TOO_LARGE names it and nothing is written. A linked subdirectory that is a symbolic link in the commit is not followed (502 CODEHOST_FETCH_FAILED). Bodies over 1 MiB are 413; signed deliveries are rate-limited per link (429), while unsigned or forged ones are 401 and count against no link.",
      tag: TAG,
      authenticated: false,
      params: WebhookParams,
      rawBody: {
        contentType: 'application/json',
        description: "The provider's event payload, exactly as signed.",
      },
      responses: RESPONSES,
      errors: ERRORS,
      handler: async (ctx, { params }) => handle(ctx, params.agent_id.toLowerCase()),
    }),
    route({
      method: 'post',
      path: '/api/v1/webhooks/codehost',
      operationId: 'codehostWebhook',
      summary: 'Code-host push webhook',
      description:
        'Like /api/v1/webhooks/codehost/{agent_id}, for one webhook per repository: the links to the repository the payload names are found, and the delivery goes to the one whose webhook secret signed it (401 when none did).',
      tag: TAG,
      authenticated: false,
      rawBody: {
        contentType: 'application/json',
        description: "The provider's event payload, exactly as signed.",
      },
      responses: RESPONSES,
      errors: ERRORS,
      handler: async (ctx) => handle(ctx, null),
    }),
  ];
}

async function rateLimit(deps: CodehostDeps, key: string, now = Date.now): Promise<void> {
  const limit = deps.webhookPerMinute;
  const at = now();
  let counts;
  try {
    counts = await deps.windows.hit(key, at);
  } catch (cause) {
    throw new ServiceUnavailable('The rate-limit store is unreachable; retry in a few seconds.', {
      cause,
    });
  }
  const verdict = evaluateWindow(counts, limit, at);
  if (verdict.allowed) return;
  await deps.windows.undo(key, at).catch(() => undefined);
  throw new RateLimitExceeded(`More than ${limit} deliveries a minute.`, {
    fields: { limit: limit, retry_after_seconds: verdict.retryAfterSeconds },
    headers: { 'Retry-After': String(verdict.retryAfterSeconds) },
  });
}

function present(outcome: WebhookOutcome) {
  const base = {
    status: outcome.status,
    agent_id: outcome.agentId,
    delivery_id: outcome.deliveryId,
  };
  if (outcome.status === 'deployed') {
    return { ...base, commit: outcome.commit, deployment_id: outcome.deploymentId };
  }
  if (outcome.status === 'ignored') return { ...base, reason: outcome.reason };
  return base;
}

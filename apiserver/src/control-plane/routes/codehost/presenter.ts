/** Shapes code-host records; none of them ever carries a token, and a link's secret only when it is new. */
import type { HostStatus } from '../../../codehost/codehost-service.js';
import type {
  CodehostAccountDoc,
  CodehostDeploymentDoc,
  CodehostLinkDoc,
} from '../../../codehost/model.js';

/** The account's host. */
export function presentHost(host: CodehostAccountDoc) {
  return {
    provider: host.provider,
    url: host.url,
    username: host.username,
    token_set: true,
    created_at: host.createdAt.toISOString(),
    updated_at: host.updatedAt.toISOString(),
  };
}

/** The status check. */
export function presentStatus(status: HostStatus) {
  return {
    connected: status.host !== null,
    provider: status.host?.provider ?? null,
    url: status.host?.url ?? null,
    token_valid: status.host ? status.checks.length > 0 && status.checks.every((c) => c.ok) : null,
    checks: status.checks,
    checked_at: status.checkedAt.toISOString(),
  };
}

/** An agent's link; `webhookSecret` only in the answer that made it. */
export function presentLink(
  link: CodehostLinkDoc,
  webhookUrl: string,
  deployments: readonly CodehostDeploymentDoc[],
  webhookSecret?: string,
) {
  return {
    agent_id: link._id,
    repository: link.repository,
    branch: link.branch,
    subdirectory: link.subdirectory,
    webhook_url: webhookUrl,
    ...(webhookSecret === undefined ? {} : { webhook_secret: webhookSecret }),
    recent_deployments: deployments.map((d) => ({
      deployment_id: d._id,
      commit: d.commit,
      delivery_id: d.deliveryId,
      created_at: d.createdAt.toISOString(),
    })),
    created_at: link.createdAt.toISOString(),
    updated_at: link.updatedAt.toISOString(),
  };
}

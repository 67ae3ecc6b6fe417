/**
 * Capability tokens for the `/internal/` routes that build and agent pods call
 * (fetch a code archive, store or fetch a build artifact): an HMAC of the
 * purpose and the deployment id under the secret the API server and the
 * operator share. A token opens one thing for one deployment, and nothing
 * else; an API key opens none of them.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * What a token may do. The id a token is over is a deployment id, except for
 * `logs:write` (the operator appending an agent's log lines), which is over the
 * agent id, and `usage:write` (the operator reporting machines, runs and
 * builds), which is over {@link USAGE_TOKEN_SUBJECT}.
 */
export type InternalPurpose =
  'archive:read' | 'artifact:write' | 'artifact:read' | 'logs:write' | 'usage:write';

/** What a `usage:write` token is over: the operator reports for every agent at once. */
export const USAGE_TOKEN_SUBJECT = 'operator';

/** The token for `purpose` on `deploymentId`. */
export function internalToken(
  secret: string,
  purpose: InternalPurpose,
  deploymentId: string,
): string {
  return createHmac('sha256', secret).update(`${purpose}\n${deploymentId}`).digest('base64url');
}

/** True when `token` is the token for `purpose` on `deploymentId` (constant-time). */
export function verifyInternalToken(
  secret: string,
  purpose: InternalPurpose,
  deploymentId: string,
  token: string,
): boolean {
  const expected = Buffer.from(internalToken(secret, purpose, deploymentId));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

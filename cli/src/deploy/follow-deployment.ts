/**
 * Following a deployment (or a run) until it settles: polls
 * `GET /api/v1/deployments/{id}`, the one place build progress is read,
 * telling each change of state. Ctrl-C stops the following only: the
 * deployment goes on, and the command exits with 130 saying how to look again.
 */
import { CliError, EXIT } from '../errors.js';
import type { ApiClient } from '../http/api-client.js';
import type { Output } from '../output.js';

/** The Deployment record, as far as following needs it. */
export interface DeploymentRecord {
  id: string;
  agent_id: string;
  version: number;
  state: string;
  queue_position: number | null;
  error_message: string | null;
  [field: string]: unknown;
}

/** States a deployment or run does not leave by itself. */
export const SETTLED_STATES = new Set([
  'active',
  'failed',
  'rolled_back',
  'superseded',
  'completed',
]);

/** Options of {@link followDeployment}. */
export interface FollowOptions {
  pollMs?: number;
  /** Give up after this long (default: never). */
  timeoutMs?: number;
}

/** Polls the deployment `id` until it settles; returns its last record. */
export async function followDeployment(
  client: ApiClient,
  out: Output,
  id: string,
  options: FollowOptions = {},
): Promise<DeploymentRecord> {
  const pollMs = options.pollMs ?? 1000;
  const deadline = options.timeoutMs ? Date.now() + options.timeoutMs : Infinity;
  const interrupted = () => {
    out.note(
      `\nStopped following; deployment ${id} goes on. Look again with: svc deployments get ${id}`,
    );
    process.exit(EXIT.interrupted);
  };
  process.once('SIGINT', interrupted);
  try {
    let last = '';
    for (;;) {
      const deployment = await client.request<DeploymentRecord>(
        'GET',
        `/api/v1/deployments/${encodeURIComponent(id)}`,
      );
      const shown =
        deployment.state === 'queued' && deployment.queue_position !== null
          ? `queued (position ${deployment.queue_position})`
          : deployment.state;
      if (shown !== last) {
        out.note(`${out.errColors.dim(new Date().toISOString().slice(11, 19))} ${shown}`);
        last = shown;
      }
      if (SETTLED_STATES.has(deployment.state)) return deployment;
      if (Date.now() > deadline)
        throw new CliError(`Deployment ${id} is still ${deployment.state}; stopped waiting.`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } finally {
    process.removeListener('SIGINT', interrupted);
  }
}

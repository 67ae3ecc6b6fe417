/** The latest version deployment of each agent (runs left out), from a newest-first list. */
import type { Deployment } from '../api/types.js';

/** Maps each agent id to its newest non-run deployment. */
export function latestByAgent(deployments: readonly Deployment[]): Map<string, Deployment> {
  const latest = new Map<string, Deployment>();
  for (const d of deployments) {
    if (d.is_ephemeral) continue;
    const seen = latest.get(d.agent_id);
    if (!seen || d.version > seen.version) latest.set(d.agent_id, d);
  }
  return latest;
}

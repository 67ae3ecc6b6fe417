/**
 * Which of an agent's builds a driver may let go. The rule mirrors the API
 * server's for code archives: the ARCHIVES_KEPT most recent successful (built)
 * versions are kept, and so is every version not yet finished or still
 * active. A failed build and a version superseded beyond the kept ones are
 * released. While a run of the agent is unfinished, no built version is
 * released: a run executes the build that was active when it started.
 */
import {
  isFinalState,
  isRetiredState,
  versionsKept,
  type AgentDeployment,
} from '../../../crds/src/index.js';
import { stateOf } from './views.js';

/** The deployments among an agent's `deployments` (runs included) whose builds may be released. */
export function releasableBuilds(deployments: readonly AgentDeployment[]): AgentDeployment[] {
  const versions = deployments.filter((d) => !d.spec.ephemeral);
  const kept = new Set(versionsKept(versions));
  const runInFlight = deployments.some((d) => d.spec.ephemeral && !isFinalState(stateOf(d)));
  return versions.filter(
    // A retired version never serves again (a rollback to it builds anew).
    (d) => isRetiredState(stateOf(d)) && !kept.has(d) && !(runInFlight && d.status?.builtAt),
  );
}

/**
 * The plan's agent quota, as a new version checks it: deploying (or rolling
 * back) an agent that holds no running app would make it one more deployed
 * agent, which the plan may not allow.
 */
import type { Agent } from '../../../crds/src/index.js';
import type { AgentService } from '../agents/agent-service.js';
import type { AuthContext } from '../auth/authenticate.js';
import { AgentQuotaExceeded } from '../errors/catalogue.js';

/**
 * Throws 403 PLAN_LIMIT_EXCEEDED when a new version of `agent` would exceed the
 * plan's agent quota; an agent already deployed keeps its place.
 */
export async function checkAgentQuota(
  agents: Pick<AgentService, 'countDeployed'>,
  auth: AuthContext,
  agent: Agent,
): Promise<void> {
  if (agent.status?.deployed) return;
  const deployed = await agents.countDeployed(auth, agent.metadata.name ?? '');
  const quota = auth.plan.agentQuota;
  if (deployed >= quota) {
    throw new AgentQuotaExceeded(
      `The ${auth.account.tier} plan allows ${quota} deployed agent(s); stop or delete one first.`,
      { fields: { field: 'agents', allowed: quota, tier: auth.account.tier } },
    );
  }
}

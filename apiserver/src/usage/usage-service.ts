/**
 * What the usage routes answer: a period's totals per kind and per agent
 * against the plan's limits, and one agent's events a page at a time.
 */
import type { AgentService } from '../agents/agent-service.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Plan } from '../accounts/plans.js';
import type { UsageEventDoc, UsageKind } from './model.js';
import { USAGE_KINDS } from './model.js';
import { limitUses, periodEnd, periodStart, usageLimitsOf, type LimitUse } from './usage-limits.js';
import { emptyTotals, type UsageStore, type UsageTotals } from './usage-store.js';

/** A period's usage. */
export interface UsageSummary {
  accountId: string;
  plan: string;
  from: Date;
  to: Date;
  /** Whether the period is the current calendar month (the one limits apply to). */
  current: boolean;
  totals: Record<UsageKind, UsageTotals>;
  agents: Array<{ agentId: string; totals: Partial<Record<UsageKind, UsageTotals>> }>;
  limits: LimitUse[];
}

/** A page of an agent's events. */
export interface UsageEventsPage {
  agentId: string;
  events: UsageEventDoc[];
  next: { at: Date; id: string } | null;
}

/** Reads usage for the routes. */
export class UsageService {
  constructor(
    private readonly store: UsageStore,
    private readonly agents: Pick<AgentService, 'resolve'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The account's usage from `from` (default: the start of the current month)
   * to `to` (default: now), summed by the database.
   */
  async summary(auth: AuthContext, range: { from?: Date; to?: Date }): Promise<UsageSummary> {
    const now = this.now();
    const to = range.to ?? now;
    const from = range.from ?? periodStart(range.to ? new Date(to.getTime() - 1) : now);
    const groups = await this.store.totals(auth.account._id, from, to);
    const totals = Object.fromEntries(USAGE_KINDS.map((k) => [k, emptyTotals()])) as Record<
      UsageKind,
      UsageTotals
    >;
    const agents = new Map<string, Partial<Record<UsageKind, UsageTotals>>>();
    for (const group of groups) {
      const sum = totals[group.kind];
      sum.events += group.events;
      sum.count += group.count;
      sum.seconds += group.seconds;
      sum.mbSeconds += group.mbSeconds;
      sum.bytes += group.bytes;
      sum.peakStorageMb = Math.max(sum.peakStorageMb, group.peakStorageMb);
      if (group.agentId) {
        const agent = agents.get(group.agentId) ?? {};
        const { kind: _kind, agentId: _agent, ...own } = group;
        agent[group.kind] = own;
        agents.set(group.agentId, agent);
      }
    }
    const start = periodStart(now);
    return {
      accountId: auth.account._id,
      plan: auth.account.tier,
      from,
      to,
      current: from.getTime() === start.getTime() && to.getTime() <= periodEnd(now).getTime(),
      totals,
      agents: [...agents.entries()]
        .map(([agentId, agentTotals]) => ({ agentId, totals: agentTotals }))
        .sort((a, b) => a.agentId.localeCompare(b.agentId)),
      limits: limitUses(usageLimitsOf(auth.plan), totals),
    };
  }

  /** A page of the agent's events (another tenant's agent: 404 AGENT_NOT_FOUND). */
  async events(
    auth: AuthContext,
    agentRef: string,
    q: {
      kinds?: UsageKind[];
      from?: Date;
      to?: Date;
      after?: { at: Date; id: string };
      limit: number;
    },
  ): Promise<UsageEventsPage> {
    const agent = await this.agents.resolve(auth, agentRef);
    const agentId = agent.metadata.name ?? '';
    const page = await this.store.page({
      accountId: auth.account._id,
      environment: auth.tenant.environment,
      agentId,
      ...q,
    });
    return { agentId, ...page };
  }

  /** Whether the account is over a hard limit of `plan` this month. */
  async overLimit(accountId: string, plan: Plan): Promise<LimitUse[]> {
    const now = this.now();
    const groups = await this.store.totals(accountId, periodStart(now), periodEnd(now));
    const totals: Partial<Record<UsageKind, UsageTotals>> = {};
    for (const group of groups) {
      const sum = (totals[group.kind] ??= emptyTotals());
      sum.count += group.count;
      sum.mbSeconds += group.mbSeconds;
      sum.bytes += group.bytes;
    }
    return limitUses(usageLimitsOf(plan), totals).filter((u) => u.exceeded);
  }
}

/**
 * Enforces the plan's hard usage limits: an account over one this month has
 * every agent (both environments) marked `svc.dev/usage-paused` with the
 * exceeded metrics, which the operator turns into the contract's
 * `usage_paused` status (service and schedule stopped, runs refused) and the
 * edge into "not reachable". When the account is back under its limits
 * (the month turned, or the plan changed) the mark is removed and the agents
 * run again. Which accounts are paused is kept in MongoDB (`usage_pauses`),
 * so a restarted server still releases them. {@link UsageEnforcer.sweep}
 * runs on a timer in the server and directly in tests.
 */
import type { Collection, Db } from 'mongodb';
import type { Tier } from '../../../crds/src/index.js';
import { ANNOTATIONS } from '../../../crds/src/index.js';
import type { Logger } from '../../../common/logger.js';
import type { AccountService } from '../accounts/account-service.js';
import { tenantNamespace, type Environment } from '../accounts/model.js';
import type { Plan } from '../accounts/plans.js';
import type { AgentRepository } from '../agents/agent-repository.js';
import { periodStart } from './usage-limits.js';
import type { UsageService } from './usage-service.js';
import type { UsageStore } from './usage-store.js';

/** An account whose agents are paused for usage. */
export interface UsagePauseDoc {
  _id: string;
  metrics: string[];
  pausedAt: Date;
}

const ENVIRONMENTS: readonly Environment[] = ['live', 'test'];

/** What one sweep did. */
export interface SweepResult {
  paused: string[];
  released: string[];
}

/** Pauses and releases accounts' agents by their usage. */
export class UsageEnforcer {
  private readonly pauses: Collection<UsagePauseDoc>;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    db: Db,
    private readonly deps: {
      store: UsageStore;
      usage: Pick<UsageService, 'overLimit'>;
      accounts: Pick<AccountService, 'getAccount'>;
      plans: Record<Tier, Plan>;
      agents: Pick<AgentRepository, 'list' | 'update'>;
      log: Logger;
      now?: () => Date;
    },
  ) {
    this.pauses = db.collection<UsagePauseDoc>('usage_pauses');
  }

  /**
   * Checks every account that used anything this month or is paused now:
   * pauses the agents of those over a limit, releases those no longer over.
   * Also marks agents created or deployed since an account was paused.
   */
  async sweep(): Promise<SweepResult> {
    const now = this.deps.now?.() ?? new Date();
    const active = (await this.deps.store.events.distinct('accountId', {
      at: { $gte: periodStart(now) },
    })) as string[];
    const paused = new Map((await this.pauses.find({}).toArray()).map((p) => [p._id, p]));
    const result: SweepResult = { paused: [], released: [] };
    for (const accountId of new Set([...active, ...paused.keys()])) {
      const account = await this.deps.accounts.getAccount(accountId);
      const over = account
        ? (await this.deps.usage.overLimit(accountId, this.deps.plans[account.tier])).map(
            (u) => u.metric,
          )
        : [];
      if (over.length > 0) {
        const changed = await this.mark(accountId, over.join(','));
        if (!paused.has(accountId)) {
          await this.pauses.replaceOne(
            { _id: accountId },
            { metrics: over, pausedAt: now },
            { upsert: true },
          );
          this.deps.log.info('account over a usage limit: agents usage_paused', {
            account: accountId,
            metrics: over,
          });
        }
        if (changed > 0 || !paused.has(accountId)) result.paused.push(accountId);
      } else if (paused.has(accountId)) {
        await this.mark(accountId, null);
        await this.pauses.deleteOne({ _id: accountId });
        this.deps.log.info('account back under its usage limits: agents released', {
          account: accountId,
        });
        result.released.push(accountId);
      }
    }
    return result;
  }

  /** Sweeps every `intervalMs` until {@link stop}. */
  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.running = this.sweep().catch((err: unknown) =>
        this.deps.log.warn('usage sweep failed', { err: (err as Error).message }),
      );
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Sets (or, with null, removes) the mark on every agent of the account; returns how many changed. */
  private async mark(accountId: string, metrics: string | null): Promise<number> {
    let changed = 0;
    for (const environment of ENVIRONMENTS) {
      const namespace = tenantNamespace(accountId, environment);
      for (const agent of await this.deps.agents.list(namespace)) {
        const current = agent.metadata.annotations?.[ANNOTATIONS.usagePaused] ?? null;
        if (current === metrics) continue;
        await this.deps.agents.update(namespace, agent.metadata.name ?? '', (a) => {
          const annotations = { ...a.metadata.annotations };
          if (metrics === null) delete annotations[ANNOTATIONS.usagePaused];
          else annotations[ANNOTATIONS.usagePaused] = metrics;
          a.metadata.annotations = annotations;
        });
        changed++;
      }
    }
    return changed;
  }
}

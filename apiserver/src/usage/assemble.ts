/** Builds the usage services of a process from its database. */
import type { Db } from 'mongodb';
import type { Tier } from '../../../crds/src/index.js';
import type { Logger } from '../../../common/logger.js';
import type { AccountService } from '../accounts/account-service.js';
import type { Plan } from '../accounts/plans.js';
import type { AgentRepository } from '../agents/agent-repository.js';
import type { AgentService } from '../agents/agent-service.js';
import { UsageEnforcer } from './usage-enforcer.js';
import { UsageService } from './usage-service.js';
import { UsageStore } from './usage-store.js';
import { UsageWriter } from './usage-writer.js';

/** How often the server checks accounts against their usage limits. */
export const USAGE_SWEEP_INTERVAL_MS = 30_000;

/** The usage services. */
export interface UsageDeps {
  store: UsageStore;
  /** Meters record through it; flushed by {@link UsageWriter.close} at shutdown. */
  writer: UsageWriter;
  service: UsageService;
  /** Moves accounts over a hard limit to usage_paused and back; started by the process. */
  enforcer: UsageEnforcer;
}

/** What the usage services are built from. */
export interface UsageInputs {
  db: Db;
  agents: Pick<AgentService, 'resolve'>;
  repository: Pick<AgentRepository, 'list' | 'update'>;
  accounts: Pick<AccountService, 'getAccount'>;
  plans: Record<Tier, Plan>;
  log: Logger;
  /** The clock periods are read by (tests move it to the next month). */
  now?: () => number;
}

/** The usage services over `db`'s `usage_events`. */
export function buildUsage(inputs: UsageInputs): UsageDeps {
  const { db, log } = inputs;
  const now = inputs.now ? () => new Date(inputs.now!()) : () => new Date();
  const store = UsageStore.open(db);
  const writer = new UsageWriter(
    (events) => store.insert(events),
    log.child({ component: 'usage' }),
  );
  const service = new UsageService(store, inputs.agents, now);
  const enforcer = new UsageEnforcer(db, {
    store,
    usage: service,
    accounts: inputs.accounts,
    plans: inputs.plans,
    agents: inputs.repository,
    log: log.child({ component: 'usage' }),
    now,
  });
  return { store, writer, service, enforcer };
}

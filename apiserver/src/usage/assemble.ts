/** Builds the usage services of a process from its database. */
import type { Db } from 'mongodb';
import type { Logger } from '../../../common/logger.js';
import type { AgentService } from '../agents/agent-service.js';
import { UsageService } from './usage-service.js';
import { UsageStore } from './usage-store.js';
import { UsageWriter } from './usage-writer.js';

/** The usage services. */
export interface UsageDeps {
  store: UsageStore;
  /** Meters record through it; flushed by {@link UsageWriter.close} at shutdown. */
  writer: UsageWriter;
  service: UsageService;
}

/** The usage services over `db`'s `usage_events`. */
export function buildUsage(db: Db, agents: Pick<AgentService, 'resolve'>, log: Logger): UsageDeps {
  const store = UsageStore.open(db);
  const writer = new UsageWriter(
    (events) => store.insert(events),
    log.child({ component: 'usage' }),
  );
  return { store, writer, service: new UsageService(store, agents) };
}

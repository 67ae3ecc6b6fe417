/**
 * Agent names, unique per tenant. A name is taken by inserting a document
 * whose `_id` is the tenant and name, so of two concurrent creates of one name
 * (on any number of API server replicas) exactly one insert succeeds; the
 * other gets MongoDB's duplicate-key error and answers 409 AGENT_NAME_TAKEN.
 */
import type { Collection } from 'mongodb';
import type { Tenant } from '../accounts/model.js';
import { AgentNameTaken, ServiceUnavailable } from '../errors/catalogue.js';
import { reservationId, type NameReservationDoc } from '../store/database.js';
import { GroupedInserts } from '../store/grouped-inserts.js';

const DUPLICATE_KEY = 11000;

function unavailable(cause: unknown): ServiceUnavailable {
  return new ServiceUnavailable(
    'The database is unreachable; nothing was written. Retry in a few seconds.',
    {
      cause,
    },
  );
}

/** Name reservations of agents. */
export class NameReservations {
  /** Creates arriving together take their names in one command (grouped-inserts.ts). */
  private readonly inserts: GroupedInserts<NameReservationDoc>;

  constructor(private readonly collection: Collection<NameReservationDoc>) {
    this.inserts = new GroupedInserts(collection);
  }

  /** Takes `name` for `agentId`; 409 AGENT_NAME_TAKEN when another agent holds it. */
  async reserve(tenant: Tenant, name: string, agentId: string): Promise<void> {
    try {
      await this.inserts.insert({
        _id: reservationId(tenant.environment, tenant.accountId, name),
        agentId,
        accountId: tenant.accountId,
        environment: tenant.environment,
        name,
        createdAt: new Date(),
      });
    } catch (err) {
      if ((err as { code?: unknown }).code === DUPLICATE_KEY) {
        throw new AgentNameTaken(`An agent named ${name} already exists.`, {
          fields: { agent: name },
        });
      }
      throw unavailable(err);
    }
  }

  /** Gives `name` up, if `agentId` holds it. */
  async release(tenant: Tenant, name: string, agentId: string): Promise<void> {
    try {
      await this.collection.deleteOne({
        _id: reservationId(tenant.environment, tenant.accountId, name),
        agentId,
      });
    } catch (err) {
      throw unavailable(err);
    }
  }

  /** The id of the agent holding `name`, or null. */
  async lookup(tenant: Tenant, name: string): Promise<string | null> {
    try {
      const doc = await this.collection.findOne({
        _id: reservationId(tenant.environment, tenant.accountId, name),
      });
      return doc?.agentId ?? null;
    } catch (err) {
      throw unavailable(err);
    }
  }
}

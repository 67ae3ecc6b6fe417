/** Turns a stored secret into the contract's `Secret` record: never a value. */
import type { SecretRecordValue } from '../control-plane/routes/secrets/schema.js';
import type { AgentSecret } from './secret-service.js';

/** The `Secret` record of `secret`. */
export function presentSecret(secret: AgentSecret): SecretRecordValue {
  return {
    id: secret.id,
    agent_id: secret.agentId,
    key: secret.key,
    description: secret.description,
    created_at: secret.created_at,
    updated_at: secret.updated_at,
  };
}

/** Turns a stored secret into the contract's `Secret` record: never a value. */
import type {
  SecretRecordValue,
  WorkspaceSecretRecordValue,
} from '../control-plane/routes/secrets/schema.js';
import type { AgentSecret } from './secret-service.js';
import type { WorkspaceSecret } from './workspace-secret-service.js';

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

/** The `WorkspaceSecret` record of `secret`. */
export function presentWorkspaceSecret(secret: WorkspaceSecret): WorkspaceSecretRecordValue {
  return {
    id: secret.id,
    workspace_name: secret.workspaceName,
    user_id: secret.userId,
    key: secret.key,
    description: secret.description,
    created_at: secret.created_at,
    updated_at: secret.updated_at,
  };
}

/** Shipping log lines the way the operator does. */
import { internalToken } from '../../../common/internal-token.js';
import { call, type ApiResponse, type TestServer } from '../control-plane-server.js';

/** A line as the ingestion route takes it. */
export interface IngestEntry {
  deployment_id?: string | null;
  timestamp?: string;
  stream: 'stdout' | 'stderr' | 'system';
  level?: string;
  message: string;
}

/** POSTs lines for an agent with its `logs:write` token (or the given one, or none with null). */
export function ingest(
  server: Pick<TestServer, 'base' | 'internalSecret'>,
  agentId: string,
  accountId: string,
  entries: IngestEntry[],
  token: string | null = internalToken(server.internalSecret, 'logs:write', agentId),
): Promise<ApiResponse<{ detail: { code: string } }>> {
  const query = token === null ? '' : `?token=${encodeURIComponent(token)}`;
  return call(server, 'POST', `/internal/agents/${agentId}/logs${query}`, {
    body: { account_id: accountId, environment: 'live', entries },
  });
}

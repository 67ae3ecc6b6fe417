/** Deploying archives through the HTTP API, for the deploy tests. */
import { makeArchive, type ArchiveFile } from '../../factories/archives.js';
import { call, type ApiResponse, type TestServer } from '../control-plane-server.js';

/** The Deployment record as tests read it. */
export type Deployment = Record<string, unknown> & {
  id: string;
  agent_id: string;
  version: number;
  state: string;
  error_message: string | null;
  warnings: string[];
};

/** An error envelope. */
export type Detail = { detail: { code: string } & Record<string, unknown> };

/** POSTs the archive of `files` to the agent's deploy route. */
export async function deployFiles(
  server: TestServer,
  key: string | null,
  agent: string,
  files: Record<string, ArchiveFile>,
): Promise<ApiResponse<Deployment & Detail>> {
  return call<Deployment & Detail>(server, 'POST', `/api/v1/agents/${agent}/deploy`, {
    key,
    rawBody: await makeArchive(files),
    headers: { 'content-type': 'application/gzip' },
  });
}

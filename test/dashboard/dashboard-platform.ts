/**
 * What the dashboard's browser tests run against: the real control plane
 * serving the dashboard (the run's one build of it) under
 * /dashboard/, the vector plane allowing its origin, the operator with the
 * local driver (real Python agents), the edge in front of them, and an
 * enterprise account (polling never meets a rate limit meant for people).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../common/logger.js';
import { AgentIndex } from '../../apiserver/src/edge/agent-index.js';
import { createEdgeServer } from '../../apiserver/src/edge/edge-server.js';
import {
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { startLocalOperator, type LocalOperator } from '../operator/local-operator.js';
import { startVectorServer, type VectorServer } from '../vector/vector-server.js';

/** The agents' domain in these tests (the browser maps it to loopback). */
export const DASHBOARD_AGENT_DOMAIN = 'agents.localtest';

/** A running platform with the dashboard. */
export interface DashboardPlatform {
  server: TestServer;
  owner: Caller;
  vectors: VectorServer;
  operator: LocalOperator;
  /** The dashboard's address. */
  dashboardUrl: string;
  /** A temporary directory (removed by stop). */
  dir: string;
  stop(): Promise<void>;
}

/** Starts the platform serving the dashboard. */
export async function startDashboardPlatform(): Promise<DashboardPlatform> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dashboard-'));
  // Built once per run, before any test (test/harness/shared-builds.mjs).
  const dist = fileURLToPath(new URL('../../dashboard/dist', import.meta.url));
  let vectorsUrl: string | null = null;
  const server = await startControlPlaneServer({
    dashboard: { dir: dist, vectorsUrl: () => vectorsUrl },
    // Region changes run (two regions on one Kubernetes API: a move relabels the one copy).
    regions: ['local', 'eu-west'],
    regionChanges: { pollMs: 200, leaseMs: 1500, edgeGraceMs: 0, backoffMs: 100 },
  });
  const vectors = await startVectorServer({ db: server.db, corsOrigins: [server.base] });
  vectorsUrl = vectors.base;
  const owner = await createCaller(server, { tier: 'enterprise' });
  const index = new AgentIndex(server.kc, createLogger('apiserver', 'silent'));
  await index.start();
  const edge: Server = createEdgeServer({
    domain: DASHBOARD_AGENT_DOMAIN,
    index,
    log: createLogger('edge', 'silent'),
    usage: server.usage?.writer,
  });
  await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
  const edgePort = (edge.address() as AddressInfo).port;
  const operator = await startLocalOperator(server, (ns) => ns === owner.namespace, {
    overrides: { agentDomain: DASHBOARD_AGENT_DOMAIN, agentPort: edgePort },
  });
  return {
    server,
    owner,
    vectors,
    operator,
    dashboardUrl: `${server.base}/dashboard/`,
    dir,
    stop: async () => {
      await operator.stop();
      edge.closeAllConnections();
      await new Promise((resolve) => edge.close(resolve));
      await index.stop();
      await vectors.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

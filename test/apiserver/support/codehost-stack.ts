/**
 * The stack the code-host tests run on: the control plane built as main.ts
 * builds it (plain HTTP to a loopback Git host allowed by configuration, as
 * only tests do), the operator with the local driver running agents as real
 * processes, and the edge that reaches them; every line each of them logs, at
 * debug, kept for the secret sweep.
 */
import type { Server } from 'node:http';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateSecret } from '../../../common/secrets.js';
import { buildControlPlane } from '../../../apiserver/src/assemble.js';
import type { CodehostConfig } from '../../../apiserver/src/codehost/assemble.js';
import { AgentIndex } from '../../../apiserver/src/edge/agent-index.js';
import { createEdgeServer } from '../../../apiserver/src/edge/edge-server.js';
import { capturingLogger } from '../../harness/capturing-logger.js';
import { kubeConfig, mongoDatabase } from '../../harness/env.js';
import type { TestServer } from '../control-plane-server.js';
import { startLocalOperator, type LocalOperator } from '../../operator/local-operator.js';

/** The agent domain of the edge. */
export const AGENT_DOMAIN = 'agents.localtest';

/** A running stack. */
export interface CodehostStack {
  server: TestServer;
  /** Every line the API server, the operator and the edge logged, at debug. */
  logLines: string[];
  /** Starts the operator for the namespaces `accept` takes (once). */
  startOperator(accept: (namespace: string) => boolean): Promise<LocalOperator>;
  /** GET `url` (an agent address) through the edge. */
  viaEdge(url: string): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

/** Starts the API server (and, on request, the operator and edge), with `codehost` settings over the tests' own. */
export async function startCodehostStack(codehost: CodehostConfig = {}): Promise<CodehostStack> {
  const logLines: string[] = [];
  const log = capturingLogger('apiserver', logLines);
  const kc = kubeConfig();
  const { client: mongo, db } = await mongoDatabase('codehost');
  const internalSecret = generateSecret();
  const { app, deps, caches } = await buildControlPlane(
    { mongo, db, kc },
    {
      regions: ['local'],
      plansJson: undefined,
      internalSecret,
      codehost: { allowLoopbackHttp: true, ...codehost },
    },
    log,
  );
  const http: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => http.once('listening', resolve));
  const server: TestServer = {
    base: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    db,
    mongo,
    kc,
    accounts: deps.accounts,
    internalSecret,
    close: async () => {
      await new Promise((resolve) => http.close(resolve));
      await caches.stop();
      await db.dropDatabase().catch(() => undefined);
      await mongo.close();
    },
  };
  let operator: LocalOperator | undefined;
  let index: AgentIndex | undefined;
  let edge: Server | undefined;
  let edgePort = 0;
  return {
    server,
    logLines,
    async startOperator(accept) {
      operator = await startLocalOperator(server, accept, {
        overrides: { agentDomain: AGENT_DOMAIN },
        log: capturingLogger('operator', logLines),
      });
      index = new AgentIndex(kc, capturingLogger('apiserver', logLines));
      await index.start();
      edge = createEdgeServer({
        domain: AGENT_DOMAIN,
        index,
        log: capturingLogger('edge', logLines),
      });
      await new Promise<void>((resolve) => edge?.listen(0, '127.0.0.1', resolve));
      edgePort = (edge.address() as AddressInfo).port;
      return operator;
    },
    viaEdge(url) {
      const { host, pathname, search } = new URL(url);
      return new Promise((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port: edgePort, path: `${pathname}${search}`, headers: { host } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                text: Buffer.concat(chunks).toString('utf8'),
              }),
            );
          },
        );
        req.on('error', reject);
        req.end();
      });
    },
    async close() {
      edge?.close();
      await index?.stop();
      await operator?.stop();
      await server.close();
    },
  };
}

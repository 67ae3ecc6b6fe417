/**
 * The vector gateway alone, as a process of its own so bench/vector-gateway.ts
 * can read its memory: builds the vector plane against `MONGODB_URI` and
 * `SVC_ENGINE_URL` (whose key is `SVC_ENGINE_API_KEY`), listens on a free
 * loopback port and prints `{"ready":"vector-gateway","url":...}`.
 *
 *   MONGODB_URI=... SVC_ENGINE_URL=... SVC_ENGINE_API_KEY=... KUBECONFIG=... \
 *     node --import tsx bench/vector-gateway-server.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { MongoClient } from 'mongodb';
import { envBool } from '../common/env.js';
import { createLogger } from '../common/logger.js';
import { requireSecret } from '../common/secrets.js';
import { buildVectorPlane } from '../apiserver/src/vector/assemble.js';

const mongo = new MongoClient(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/svc');
const kc = new KubeConfig();
kc.loadFromDefault();
const plane = await buildVectorPlane(
  { db: mongo.db(), kc },
  {
    engineUrl: process.env.SVC_ENGINE_URL ?? 'http://127.0.0.1:6333',
    engineApiKey: requireSecret('SVC_ENGINE_API_KEY'),
    regions: ['local'],
    coalesceSearches: envBool('SVC_VECTOR_COALESCE', true),
  },
  createLogger('apiserver', process.env.SVC_LOG_LEVEL ?? 'warn'),
);
const server = createServer(plane.handler).listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(
    JSON.stringify({ ready: 'vector-gateway', url: `http://127.0.0.1:${port}` }) + '\n',
  );
});
process.once('SIGTERM', () => {
  server.close();
  void plane
    .close()
    .then(() => mongo.close())
    .then(() => process.exit(0));
});

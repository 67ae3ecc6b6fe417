/**
 * A control plane whose region registry names two real regions: the harness's
 * kube-apiserver (`local`) and a second one started by the test
 * (../harness/regions.ts). Neither region's engine is used by these servers.
 */
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../common/logger.js';
import { generateSecret } from '../../common/secrets.js';
import { buildControlPlane, type ControlPlaneConfig } from '../../apiserver/src/assemble.js';
import { RegionApis } from '../../apiserver/src/regions/region-apis.js';
import { parseRegionList } from '../../apiserver/src/regions/registry.js';
import { harness, kubeConfig, mongoDatabase } from '../harness/env.js';
import type { TestRegion } from '../harness/regions.js';
import type { TestServer } from './control-plane-server.js';

/** What {@link startTwoRegionServer} started. */
export interface TwoRegionServer {
  server: TestServer;
  deps: Awaited<ReturnType<typeof buildControlPlane>>['deps'];
  /** The two regions' Kubernetes APIs, as the server uses them. */
  apis: RegionApis;
}

/**
 * Starts the control plane on 127.0.0.1:0 with `local` and `second` in its
 * registry, on a fresh database named after `database` (or another server's). `close()` stops the
 * server and drops the database; the region is the caller's to stop.
 */
export async function startTwoRegionServer(
  second: TestRegion,
  database: string,
  opts: {
    /** Runs region changes with these timings (without it, they are accepted and never run). */
    regionChanges?: ControlPlaneConfig['regionChanges'];
    /** Another server's database (and secret), to share its accounts and operations. */
    shareWith?: TwoRegionServer;
  } = {},
): Promise<TwoRegionServer> {
  const home = kubeConfig();
  const unused = 'http://127.0.0.1:1';
  const registry = parseRegionList(
    JSON.stringify([
      { name: 'local', kubeconfig: harness().kubeconfigPath, engineUrl: unused },
      second.entry,
    ]),
    { kubeconfig: undefined, engineUrl: unused },
    'SVC_REGIONS_JSON',
  );
  const { client: mongo, db } = opts.shareWith
    ? { client: opts.shareWith.server.mongo, db: opts.shareWith.server.db }
    : await mongoDatabase(database);
  const config = {
    regions: registry.names,
    plansJson: undefined,
    internalSecret: opts.shareWith?.server.internalSecret ?? generateSecret(),
    regionChanges: opts.regionChanges,
  };
  const apis = RegionApis.fromRegistry(registry, home);
  const { app, deps, caches } = await buildControlPlane(
    { mongo, db, kc: home, apis },
    config,
    createLogger('apiserver', 'silent'),
  );
  if (opts.regionChanges) deps.regionRunner.start();
  const http = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => http.once('listening', resolve));
  const server: TestServer = {
    base: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    db,
    mongo,
    kc: home,
    accounts: deps.accounts,
    internalSecret: config.internalSecret,
    close: async () => {
      await deps.regionRunner.stop();
      await new Promise((resolve) => http.close(resolve));
      // Its watches are connections of their own: left open, jest would never exit.
      await caches.stop();
      if (opts.shareWith) return;
      await db.dropDatabase().catch(() => undefined);
      await mongo.close();
    },
  };
  return { server, deps, apis };
}

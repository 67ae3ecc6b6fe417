/**
 * Starts the real control-plane app on a free port against the harness's
 * kube-apiserver and FerretDB (a database of its own per server), and builds
 * callers: accounts with keys, made the way the admin command makes them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { MongoClient, type Db } from 'mongodb';
import type { Tier } from '../../crds/src/index.js';
import { createLogger, type Logger } from '../../common/logger.js';
import { generateSecret } from '../../common/secrets.js';
import type { AccountService } from '../../apiserver/src/accounts/account-service.js';
import type { Environment, SubscriptionStatus } from '../../apiserver/src/accounts/model.js';
import {
  buildControlPlane,
  controlPlaneDeps,
  type ControlPlaneConfig,
} from '../../apiserver/src/assemble.js';
import type { Engines } from '../../apiserver/src/vector/engines.js';
import { createControlPlaneApp } from '../../apiserver/src/control-plane/app.js';
import type { UsageDeps } from '../../apiserver/src/usage/assemble.js';
import { kubeConfig, mongoDatabase, uniqueSuffix } from '../harness/env.js';
import { withDashboard, type DashboardSiteOptions } from '../../apiserver/src/dashboard/site.js';

/** A running control plane. */
export interface TestServer {
  base: string;
  db: Db;
  mongo: MongoClient;
  kc: KubeConfig;
  accounts: AccountService;
  /** The secret this server's /internal/ tokens are signed with (an operator beside it needs it). */
  internalSecret: string;
  /** Usage metering (an edge beside it records through `usage.writer`); absent on a server built elsewhere. */
  usage?: UsageDeps;
  close(): Promise<void>;
}

/** Options of {@link startControlPlaneServer}. */
export interface ServerOptions {
  plansJson?: string;
  regions?: string[];
  now?: () => number;
  /** Defaults to the harness admin. */
  kc?: KubeConfig;
  /** Another server's database and client, to share its accounts. */
  shareWith?: TestServer;
  /** Point the server at a MongoDB address nothing listens on (a dependency that is down). */
  mongoDown?: boolean;
  maxArchiveBytes?: number;
  /** Defaults to a new random one per server. */
  internalSecret?: string;
  /** The platform's component report, as `SVC_PLATFORM_STATUS_FILE` names it. */
  platformStatusFile?: string;
  /** The server's logger (default: silent), for tests that read what it logs. */
  log?: Logger;
  /** Runs region changes with these timings (without it, they are accepted and never run). */
  regionChanges?: ControlPlaneConfig['regionChanges'];
  /** The regions' engines, which region changes copy collections between. */
  engines?: Engines;
  /** Serves the web dashboard under /dashboard/ in front of the API, as main.ts does. */
  dashboard?: DashboardSiteOptions;
}

/** Starts the app on 127.0.0.1:0. */
export async function startControlPlaneServer(opts: ServerOptions = {}): Promise<TestServer> {
  const kc = opts.kc ?? kubeConfig();
  const config = {
    regions: opts.regions ?? ['local', 'eu-west'],
    plansJson: opts.plansJson,
    maxArchiveBytes: opts.maxArchiveBytes,
    internalSecret: opts.internalSecret ?? generateSecret(),
    platformStatusFile: opts.platformStatusFile,
    regionChanges: opts.regionChanges,
  };
  const log = opts.log ?? createLogger('apiserver', 'silent');
  let mongo: MongoClient;
  let db: Db;
  let built;
  if (opts.mongoDown) {
    mongo = new MongoClient('mongodb://127.0.0.1:1/', { serverSelectionTimeoutMS: 300 });
    db = mongo.db('unreachable');
    // Without building indexes, which needs the database.
    const deps = controlPlaneDeps({ mongo, db, kc }, config, log, opts.now);
    built = { deps, app: createControlPlaneApp(deps) };
  } else {
    ({ client: mongo, db } = opts.shareWith
      ? { client: opts.shareWith.mongo, db: opts.shareWith.db }
      : await mongoDatabase('cp'));
    built = await buildControlPlane(
      { mongo, db, kc, engines: opts.engines },
      config,
      log,
      opts.now,
    );
  }
  const { app, deps } = built;
  if (opts.regionChanges) deps.regionRunner.start();
  const server: Server = opts.dashboard
    ? createServer(withDashboard(app.callback(), opts.dashboard)).listen(0, '127.0.0.1')
    : app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    db,
    mongo,
    kc,
    accounts: deps.accounts,
    internalSecret: config.internalSecret,
    usage: deps.usage,
    close: async () => {
      await built.caches?.stop();
      await deps.regionRunner.stop();
      await new Promise((resolve) => server.close(resolve));
      if (!opts.mongoDown) await deps.usage.writer.close();
      if (!opts.shareWith) {
        if (!opts.mongoDown) await db.dropDatabase().catch(() => undefined);
        await mongo.close();
      }
    },
  };
}

/** An account with one key. */
export interface Caller {
  accountId: string;
  key: string;
  keyId: string;
  namespace: string;
}

/** Creates an account and a key for it. */
export async function createCaller(
  server: Pick<TestServer, 'accounts'>,
  opts: { tier?: Tier; subscriptionStatus?: SubscriptionStatus; environment?: Environment } = {},
): Promise<Caller> {
  const account = await server.accounts.createAccount({
    name: `acct-${uniqueSuffix()}`,
    tier: opts.tier ?? 'starter',
    subscriptionStatus: opts.subscriptionStatus ?? 'active',
    homeRegion: 'local',
  });
  const environment = opts.environment ?? 'live';
  const key = await server.accounts.createKey({ accountId: account._id, environment });
  return {
    accountId: account._id,
    key: key.text,
    keyId: key.keyId,
    namespace: `svc-${environment}-${account._id}`,
  };
}

/** A response as tests look at it. */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Sends a request with the caller's key (or none), a JSON body when given. */
export async function call<T = Record<string, unknown>>(
  server: Pick<TestServer, 'base'>,
  method: string,
  path: string,
  opts: {
    key?: string | null;
    body?: unknown;
    rawBody?: string | Buffer;
    headers?: Record<string, string>;
  } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | Buffer | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${server.base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

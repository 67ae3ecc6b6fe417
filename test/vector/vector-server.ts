/**
 * Starts the real vector plane on a free port against the harness's FerretDB
 * (a database of its own) and a real engine process, and builds callers:
 * accounts with user keys or keys minted for an agent's deployment.
 */
import { call, type ApiResponse } from '../apiserver/control-plane-server.js';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Db, MongoClient } from 'mongodb';
import type { Tier } from '../../crds/src/index.js';
import { createLogger } from '../../common/logger.js';
import { AccountService } from '../../apiserver/src/accounts/account-service.js';
import { tenantNamespace, type Environment } from '../../apiserver/src/accounts/model.js';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, PLURALS } from '../../crds/src/index.js';
import { workspaceResource } from '../factories/custom-resources.js';
import { collections } from '../../apiserver/src/store/database.js';
import { buildVectorPlane, type VectorPlaneOptions } from '../../apiserver/src/vector/assemble.js';
import type { Engines } from '../../apiserver/src/vector/engines.js';
import { withCors } from '../../apiserver/src/vector/cors.js';
import { kubeConfig, mongoDatabase, uniqueSuffix } from '../harness/env.js';
import {
  startEngine,
  TEST_ENGINE_API_KEY,
  type EngineProcess,
} from '../engine/support/engine-process.js';

/** A running vector plane with its engine. */
export interface VectorServer {
  base: string;
  engineUrl: string;
  /** The key the engine requires, for tests that reach it behind the gateway's back. */
  engineApiKey: string;
  db: Db;
  accounts: AccountService;
  /** Records a vector storage sample of every tenant now, as the hourly timer would. */
  sampleStorage(): Promise<number>;
  close(): Promise<void>;
}

/** Options of {@link startVectorServer}. */
export interface VectorServerOptions extends VectorPlaneOptions {
  plansJson?: string;
  regions?: string[];
  /** Use this engine (and leave it running) instead of starting one. */
  engine?: EngineProcess;
  /** Engine URL to use without starting one (e.g. nothing listening). */
  engineUrl?: string;
  /** The key of the engine at `engineUrl` (default: the key test engines are started with). */
  engineApiKey?: string;
  /** Use this database (and leave it) instead of a new one: a second plane over the same data. */
  db?: Db;
  /** `false`: never join concurrent searches into batch requests. */
  coalesceSearches?: boolean;
  /** The regions' engines, shared with a control plane beside it (region changes). */
  engines?: Engines;
  /** Origins whose pages may call it from a browser (the dashboard's), as main.ts allows. */
  corsOrigins?: string[];
}

/** Starts the vector plane on 127.0.0.1:0. */
export async function startVectorServer(opts: VectorServerOptions = {}): Promise<VectorServer> {
  const ownEngine = opts.engine || opts.engineUrl ? null : await startEngine();
  const engineUrl = opts.engineUrl ?? (opts.engine ?? ownEngine)!.url;
  const engineApiKey =
    opts.engineApiKey ?? (opts.engine ?? ownEngine)?.apiKey ?? TEST_ENGINE_API_KEY;
  let own: { client: MongoClient; db: Db } | null = null;
  let plane: Awaited<ReturnType<typeof buildVectorPlane>>;
  let db: Db;
  try {
    own = opts.db ? null : await mongoDatabase('vp');
    db = opts.db ?? own!.db;
    const kc = kubeConfig();
    plane = await buildVectorPlane(
      { db, kc, engines: opts.engines },
      {
        engineUrl,
        engineApiKey,
        regions: opts.regions ?? ['local', 'eu-west'],
        plansJson: opts.plansJson,
        coalesceSearches: opts.coalesceSearches,
      },
      createLogger('apiserver', 'silent'),
      {
        now: opts.now,
        upsert: opts.upsert,
        schema: opts.schema,
        storageTtlMs: opts.storageTtlMs,
        fastPath: opts.fastPath,
        moves: opts.moves,
      },
    );
  } catch (err) {
    // Nothing of a vector plane that did not start is left running (its engine least of all).
    await own?.client.close().catch(() => undefined);
    await ownEngine?.dispose();
    throw err;
  }
  const handler = opts.corsOrigins ? withCors(plane.handler, opts.corsOrigins) : plane.handler;
  const server: Server = createServer(handler).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    engineUrl,
    engineApiKey,
    db,
    accounts: new AccountService(collections(db), 'local'),
    sampleStorage: () => plane.sampleStorage(),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await plane.close();
      if (own) {
        await own.db.dropDatabase().catch(() => undefined);
        await own.client.close();
      }
      await ownEngine?.dispose();
    },
  };
}

/** An account with one key. */
export interface VectorCaller {
  accountId: string;
  key: string;
  environment: Environment;
}

/** Creates an account and a user key for it. */
export async function createVectorCaller(
  server: Pick<VectorServer, 'accounts'>,
  opts: { tier?: Tier; suspended?: boolean; environment?: Environment; homeRegion?: string } = {},
): Promise<VectorCaller> {
  const account = await server.accounts.createAccount({
    name: `acct-${uniqueSuffix()}`,
    tier: opts.tier ?? 'starter',
    subscriptionStatus: 'active',
    homeRegion: opts.homeRegion ?? 'local',
  });
  if (opts.suspended) await server.accounts.updateAccount(account._id, { suspended: true });
  const environment = opts.environment ?? 'live';
  const key = await server.accounts.createKey({ accountId: account._id, environment });
  return { accountId: account._id, key: key.text, environment };
}

/**
 * Creates a `Workspace` of the caller's tenant (and its namespace when
 * missing) in the real kube-apiserver, as the control plane's workspace
 * routes would.
 */
export async function createWorkspace(caller: VectorCaller, name: string): Promise<void> {
  const kc = kubeConfig();
  const namespace = tenantNamespace(caller.accountId, caller.environment);
  await kc
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: namespace } } })
    .catch((err: unknown) => {
      if ((err as { code?: number }).code !== 409) throw err;
    });
  const workspace = workspaceResource(namespace, name);
  await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    namespace,
    plural: PLURALS.Workspace,
    body: workspace,
  });
}

/** A key of the same account minted for an agent's deployment, as the deploy path mints it. */
export async function createAgentKey(
  server: Pick<VectorServer, 'accounts'>,
  caller: VectorCaller,
): Promise<{ key: string; agentId: string; deploymentId: string }> {
  const agentId = randomUUID();
  const deploymentId = randomUUID();
  const key = await server.accounts.createKey({
    accountId: caller.accountId,
    environment: caller.environment,
    agentId,
    deploymentId,
  });
  return { key: key.text, agentId, deploymentId };
}

/** A response as tests look at it. */
/** A response as tests look at it. */
export type VectorResponse<T = Record<string, unknown>> = ApiResponse<T>;

/** The error of an error response. */
export interface ErrorBody {
  error: { code: string; message: string; retriable?: boolean; [extra: string]: unknown };
}

/**
 * Sends a request whose body `write` produces on the raw node:http request
 * (bodies fetch will not send: a declared length never met, pieces with
 * pauses between them); resolves with the status and the parsed JSON answer.
 */
export function rawRequest<T = ErrorBody>(
  base: string,
  method: string,
  target: string,
  headers: Record<string, string | number>,
  write: (req: ReturnType<typeof request>) => void,
): Promise<{ status: number; body: T }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${target}`, { method, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as T }));
    });
    req.on('error', reject);
    write(req);
  });
}

/** Sends a request with a key (or none) and a JSON body when given (the same helper as the control plane's). */
export const vcall = call;

/** Creates a collection through the gateway; throws unless it answers 200 or 201. */
export async function createCollection(
  server: Pick<VectorServer, 'base'>,
  key: string,
  name: string,
  size = 4,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const res = await vcall(server, 'POST', '/api/v1/collections', {
    key,
    body: { name, vectors: { size, distance: 'cosine' }, ...extra },
  });
  if (res.status !== 201 && res.status !== 200) {
    throw new Error(`create ${name}: ${res.status} ${res.text}`);
  }
}

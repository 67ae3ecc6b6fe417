/**
 * Wires the vector plane from its connections and configuration: used by
 * main.ts and by the integration tests alike.
 */
import type { RequestListener } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import type Koa from 'koa';
import type { Db } from 'mongodb';
import type { Logger } from '../../../common/logger.js';
import { AccountService } from '../accounts/account-service.js';
import { loadPlans } from '../accounts/plans.js';
import { MongoWindowStore } from '../rate-limit/mongo-window-store.js';
import { collections, ensureIndexes } from '../store/database.js';
import { createVectorAppWithRouter } from './app.js';
import { CollectionService } from './collections/service.js';
import { KubernetesWorkspaceDirectory } from './collections/workspace-directory.js';
import { Engines } from './engines.js';
import { MoveGate, type MoveGateOptions } from './collections/move-gate.js';
import { vectorGuard } from './guards.js';
import { fastPath } from './fast-path.js';
import type { UpsertLimits } from './points/routes.js';
import { SchemaService, type SchemaLimits } from './schema/service.js';
import { StorageMeter } from './storage/storage-meter.js';
import { UsageStore } from '../usage/usage-store.js';
import { UsageWriter } from '../usage/usage-writer.js';
import { meteredGuard } from '../usage/request-meter.js';
import { StorageSampler } from '../usage/storage-sampler.js';

/** Configuration of the vector plane. */
export interface VectorPlaneConfig {
  /** Base URL of the engine (`SVC_ENGINE_URL`): the home region's. */
  engineUrl: string;
  /** Each region's engine (the registry's engineUrl); a region left out uses `engineUrl`. */
  engineUrls?: Readonly<Record<string, string>>;
  /** The engine's API key (`SVC_ENGINE_API_KEY`), sent on every request to it. */
  engineApiKey: string;
  /** Regions this installation offers; the first is the default. */
  regions: string[];
  /** Each region's public URL (the registry's publicUrl; null or absent: the request's origin). */
  regionUrls?: Readonly<Record<string, string | null>>;
  /** `SVC_PLANS_JSON`. */
  plansJson?: string | undefined;
  /**
   * Whether concurrent searches of a collection go to the engine as one batch
   * (`SVC_VECTOR_COALESCE`, default true; see search-coalescer.ts).
   */
  coalesceSearches?: boolean;
}

/** Knobs tests turn; production leaves them unset. */
export interface VectorPlaneOptions {
  now?: () => number;
  upsert?: Partial<UpsertLimits>;
  /** Payload schema bounds; tests shorten the conformance time budget. */
  schema?: Partial<SchemaLimits>;
  /** How long an account's measured storage is reused (tests use 0: measure every time). */
  storageTtlMs?: number;
  /** Time between vector storage samples recorded as usage (default hourly; 0: none). */
  storageSampleMs?: number;
  /** How writes wait while a collection switches engines (tests shorten them). */
  moves?: MoveGateOptions;
  /** Whether the fast path answers the routes it can before Koa (default true; tests compare). */
  fastPath?: boolean;
}

/** What the vector plane runs on. */
export interface VectorConnections {
  db: Db;
  /** Reads Workspace resources for the workspace-scoped routes. */
  kc: KubeConfig;
  /** The regions' engines, when the process shares them (else built from the configuration). */
  engines?: Engines;
}

/** A built vector plane. */
export interface VectorPlane {
  app: Koa;
  /** What the server runs: the fast path, then the Koa app for everything it leaves. */
  handler: RequestListener;
  /** Stops the background purge of old rate-limit buckets and writes the usage still buffered. */
  close(): Promise<void>;
  /** Records a vector storage sample of every tenant now (the hourly timer's work); returns how many. */
  sampleStorage(): Promise<number>;
}

/**
 * Creates the indexes (idempotent) and returns the vector-plane app. `kc`
 * reads Workspace resources for the workspace-scoped routes.
 */
export async function buildVectorPlane(
  conn: VectorConnections,
  config: VectorPlaneConfig,
  log: Logger,
  options: VectorPlaneOptions = {},
): Promise<VectorPlane> {
  await ensureIndexes(collections(conn.db));
  return vectorPlaneApp(conn, config, log, options);
}

/**
 * The vector plane without creating indexes first, so it can be built against
 * a database that is down (to test how that is answered).
 */
export function vectorPlaneApp(
  conn: VectorConnections,
  config: VectorPlaneConfig,
  log: Logger,
  options: VectorPlaneOptions = {},
): VectorPlane {
  const c = collections(conn.db);
  const plans = loadPlans(config.plansJson);
  const accounts = new AccountService(c, config.regions[0] ?? 'local');
  const windows = new MongoWindowStore(c.rateBuckets);
  // Searches go through a coalescer wrapping each engine's client, unless turned off.
  const engines =
    conn.engines ??
    Engines.fromUrls(config.regions[0] ?? 'local', config.engineUrl, config.engineUrls ?? {}, {
      apiKey: config.engineApiKey,
      coalesce: config.coalesceSearches,
    });
  const now = options.now ?? (() => Date.now());
  // Every request the guard lets through is the account's usage, whichever lane answers it.
  const usageStore = UsageStore.open(conn.db);
  const usage = new UsageWriter(
    (events) => usageStore.insert(events),
    log.child({ component: 'usage' }),
  );
  const storage = new StorageMeter(c, engines, undefined, options.storageTtlMs);
  const sampler = new StorageSampler(c.vectorCollections, storage, usage, log);
  if (options.storageSampleMs !== 0) sampler.start(options.storageSampleMs);
  const collectionService = new CollectionService(
    c,
    engines,
    config.regions,
    new KubernetesWorkspaceDirectory(conn.kc),
    now,
  );
  const deps = {
    log: log.child({ front: 'vectors' }),
    guard: meteredGuard(vectorGuard({ accounts, plans }, windows, now), usage),
    collections: collectionService,
    engines,
    moves: new MoveGate(c, (id) => collectionService.forget(id), options.moves),
    schemas: new SchemaService(c.payloadSchemas, engines, options.schema, now),
    storage,
    regions: config.regions,
    regionUrls: config.regionUrls,
    upsert: options.upsert,
  };
  const { app, routes } = createVectorAppWithRouter(deps);
  const koa = app.callback();
  // The fast path answers some of the routes Koa mounts, from the same declarations.
  const lane = options.fastPath === false ? () => false : fastPath(routes, deps);
  const handler: RequestListener = (req, res) => {
    if (!lane(req, res)) void koa(req, res);
  };
  // Buckets of this store's own shards; the control plane's purge deletes everyone's old buckets too.
  const purge = setInterval(() => {
    windows
      .purgeOlderThan(Date.now())
      .catch((err: unknown) => log.warn('vector rate-limit purge failed', { err }));
  }, 60_000);
  purge.unref();
  return {
    app: app as unknown as Koa,
    handler,
    sampleStorage: () => sampler.sample(),
    close: async () => {
      clearInterval(purge);
      await sampler.stop();
      await usage.close();
      // Engines handed in belong to whoever built them (main.ts shares them with the control plane).
      if (!conn.engines) engines.close();
    },
  };
}

/**
 * Wires the API server's services from its connections and configuration:
 * one place, used by main.ts and by the integration tests alike.
 */
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Db, MongoClient } from 'mongodb';
import type { Logger } from '../../common/logger.js';
import { AccountService } from './accounts/account-service.js';
import { loadPlans } from './accounts/plans.js';
import { AgentRepository } from './agents/agent-repository.js';
import { AgentService } from './agents/agent-service.js';
import { NameReservations } from './agents/name-reservations.js';
import type { ApiServerConfig } from './config.js';
import { createControlPlaneApp, type ControlPlaneDeps } from './control-plane/app.js';
import { LogStore } from './logs/log-store.js';
import { RunService } from './runs/run-service.js';
import { kubernetesProbe, mongoProbe, platformComponents } from './probes.js';
import { MongoWindowStore } from './rate-limit/mongo-window-store.js';
import { ArchiveStore } from './deploy/archive-store.js';
import { DeployService } from './deploy/deploy-service.js';
import { RollbackCommand } from './deploy/rollback.js';
import { DeploymentService } from './deploy/deployment-service.js';
import { DeploymentLocator } from './deploy/deployment-locator.js';
import { DeploymentKeyReaper } from './deploy/deployment-keys.js';
import { RegionalRepository } from './store/regional-resources.js';
import { RegionCaches } from './store/region-caches.js';
import { RegionApis } from './regions/region-apis.js';
import { workspaceId } from './workspaces/workspace-ids.js';
import { workspaceSecretsName } from '../../crds/src/index.js';
import { SecretStore } from './secrets/secret-store.js';
import { collections, ensureIndexes } from './store/database.js';
import { WorkspaceCollections } from './workspaces/workspace-collections.js';
import { WorkspaceRepository } from './workspaces/workspace-repository.js';
import { WorkspaceService } from './workspaces/workspace-service.js';
import { RegionChangeService } from './workspaces/region-change.js';
import { OperationStore } from './operations/operation-store.js';
import { AgentMover } from './operations/agent-mover.js';
import { OperationRunner, type RunnerOptions } from './operations/operation-runner.js';
import { RegionChangeRunSteps, type StepOptions } from './operations/region-change-steps.js';
import { CollectionMover, type CollectionMoverOptions } from './operations/collection-mover.js';
import { CollectionChangeService } from './operations/collection-change.js';
import { Engines } from './vector/engines.js';
import { SecretService } from './secrets/secret-service.js';
import { WorkspaceSecretService } from './secrets/workspace-secret-service.js';
import { buildCodehost, type CodehostConfig } from './codehost/assemble.js';
import { HomeRegionService } from './accounts/home-region.js';
import { placedRegions } from './accounts/placed-regions.js';
import { buildUsage } from './usage/assemble.js';

/** The connections the server runs on. */
export interface Connections {
  mongo: MongoClient;
  db: Db;
  /** The home region's Kubernetes API. */
  kc: KubeConfig;
  /** Every region's API (main.ts builds them from the registry); default: every region on `kc`. */
  apis?: RegionApis;
  /**
   * Every region's vector engine, which region changes copy collections
   * between (main.ts shares them with the vector plane); without them, no
   * collection's points are copied: collections only take their new regions.
   */
  engines?: Engines;
}

/** Builds the control-plane dependencies. */
export function controlPlaneDeps(
  conn: Connections,
  config: ControlPlaneConfig,
  log: Logger,
  now?: () => number,
): ControlPlaneDeps {
  const c = collections(conn.db);
  const plans = loadPlans(config.plansJson);
  const accounts = new AccountService(c, config.regions[0] ?? 'local');
  const apis = conn.apis ?? RegionApis.shared(config.regions, conn.kc);
  const agentRepository = new AgentRepository(apis);
  const keys = new DeploymentKeyReaper(
    apis.apis.map((a) => a.kc),
    accounts,
    new RegionalRepository(apis, 'AgentDeployment', 'deployment'),
    log.child({ component: 'deployment-keys' }),
  );
  const workspaceRepository = new WorkspaceRepository(conn.kc, agentRepository);
  const homeSecrets = new SecretStore(conn.kc.makeApiClient(CoreV1Api));
  const agents = new AgentService({
    repository: agentRepository,
    names: new NameReservations(c.nameReservations),
    plans,
    regions: config.regions,
    keys,
    workspaceRegions: async (namespace, name) =>
      (await workspaceRepository.get(namespace, workspaceId(namespace, name)))?.spec.regions ??
      null,
    workspaceLongSecretKeys: async (namespace, name) =>
      (
        await homeSecrets.load(namespace, workspaceSecretsName(workspaceId(namespace, name)))
      ).longKeys(),
  });
  const archives = new ArchiveStore(conn.db, 'archives');
  const logs = new LogStore(c.logChunks, c.logHeads);
  const deploy = new DeployService({
    apis,
    agents,
    archives,
    versions: c.deploymentVersions,
    accounts,
    plans,
    regions: config.regions,
    maxArchiveBytes: config.maxArchiveBytes ?? 200 * 1024 * 1024,
    logs,
  });
  const workspaces = new WorkspaceService({
    repository: workspaceRepository,
    agents: agentRepository,
    collections: new WorkspaceCollections(c.vectorCollections),
    regions: config.regions,
  });
  const deployments = new DeploymentService({ agents, deploy, archives, payloads: c.runPayloads });
  const rollback = new RollbackCommand({ agents, archives, deployments, records: deploy.records });
  const workspaceSecrets = new WorkspaceSecretService(workspaces, agentRepository);
  const operations = OperationStore.open(conn.db);
  const timings = config.regionChanges ?? {};
  const regionRunner = new OperationRunner(
    operations,
    new RegionChangeRunSteps(
      {
        mover: new AgentMover(
          apis,
          agentRepository,
          (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
          timings.edgeGraceMs,
        ),
        agents: agentRepository,
        workspaces: workspaceRepository,
        workspaceSecrets,
        collections: new CollectionMover(
          c,
          conn.engines ?? Engines.fromUrls(apis.home, 'http://127.0.0.1:1', {}),
          timings,
        ),
      },
      timings,
    ),
    log.child({ component: 'region-changes' }),
    timings,
  );
  const internal = {
    secret: config.internalSecret,
    locator: new DeploymentLocator(apis),
    archives,
    artifacts: new ArchiveStore(conn.db, 'artifacts'),
    maxArtifactBytes: 4 * (config.maxArchiveBytes ?? 200 * 1024 * 1024),
  };
  return {
    log,
    probes: [mongoProbe(conn.mongo), kubernetesProbe(conn.kc)],
    components: config.platformStatusFile
      ? platformComponents(config.platformStatusFile)
      : undefined,
    accounts,
    plans,
    // A test's clock (`now`) also ages the other replicas' counts; otherwise the wall clock does.
    windows: new MongoWindowStore(c.rateBuckets, now ? { clock: now } : {}),
    agents,
    deploy,
    deployments,
    rollback,
    internal,
    logs,
    runs: new RunService({
      agents,
      deployments: deploy.deployments,
      payloads: c.runPayloads,
    }),
    workspaces,
    regionChanges: new RegionChangeService({
      workspaces,
      regions: config.regions,
      operations,
      collections: new WorkspaceCollections(c.vectorCollections),
      started: () => regionRunner.kick(),
      now,
    }),
    collectionChanges: new CollectionChangeService({
      collections: c.vectorCollections,
      workspaces,
      regions: config.regions,
      operations,
      started: () => regionRunner.kick(),
      now,
    }),
    operations,
    regionRunner,
    secrets: new SecretService(agentRepository, agents),
    workspaceSecrets,
    codehost: buildCodehost({
      db: conn.db,
      kc: conn.kc,
      accounts,
      plans,
      agents,
      namespaces: agentRepository,
      deploy,
      windows: new MongoWindowStore(c.rateBuckets),
      log,
      config: config.codehost,
    }),
    keys,
    homeRegions: new HomeRegionService(
      accounts,
      config.regions,
      placedRegions(c.vectorCollections, agentRepository),
    ),
    usage: buildUsage({
      db: conn.db,
      agents,
      repository: agentRepository,
      accounts,
      plans,
      log,
      now,
    }),
    now,
  };
}

/** The configuration the control plane needs. */
export type ControlPlaneConfig = Pick<ApiServerConfig, 'regions' | 'plansJson' | 'internalSecret'> &
  Partial<Pick<ApiServerConfig, 'maxArchiveBytes' | 'platformStatusFile'>> & {
    /** Code-host settings (from `loadConfig`; the defaults apply when left out). */
    codehost?: CodehostConfig;
    /** Timings of region changes (tests shorten them; the defaults suit production). */
    regionChanges?: RunnerOptions & StepOptions & CollectionMoverOptions & { edgeGraceMs?: number };
  };

/** Creates the indexes (idempotent) and returns the control-plane app. */
export async function buildControlPlane(
  conn: Connections,
  config: ControlPlaneConfig,
  log: Logger,
  now?: () => number,
) {
  await ensureIndexes(collections(conn.db));
  // Reads of Agents, deployments and Workspaces come from watch-fed caches, filled first.
  const apis = conn.apis ?? RegionApis.shared(config.regions, conn.kc);
  const caches = new RegionCaches(apis, log);
  await caches.start();
  const deps = controlPlaneDeps({ ...conn, apis }, config, log, now);
  await deps.operations.ensureIndexes();
  await deps.codehost.store.ensureIndexes();
  await deps.usage.store.ensureIndexes();
  return { deps, caches, app: createControlPlaneApp(deps) };
}

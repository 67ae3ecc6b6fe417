/**
 * The single-machine platform as one function: the local control plane
 * (etcd, kube-apiserver, kube-controller-manager, FerretDB), the vector
 * engine, the API server (control plane, vector plane and agent edge) and the
 * operator with the local driver, each
 * its own process. Used by `npm start` and by the benchmarks; a failure while
 * starting stops what had started. The internal secret and the engine's API
 * key are kept in files in `dir` (secrets.ts), whose paths the processes get:
 * the engine's key goes only to the engine and the API server, the internal
 * secret only to the API server and the operator.
 *
 * Every process is supervised once it has started (../lib/supervisor.ts): one
 * that exits is restarted with the same ports, data and secret files, each
 * exit and restart is a line of the log and of `logs/platform.log`, and the
 * supervisor's report (`platform-status.json`, named to the API server by
 * `SVC_PLATFORM_STATUS_FILE`) is shown by its `/api/v1/health`. When restarts
 * keep failing the platform stops everything and calls `onGiveUp`.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_SERVER_NODE_FLAGS } from '../../common/node-flags.js';
import { startControlPlane, type ControlPlane } from '../control-plane/index.js';
import { startRegionApi } from '../control-plane/region.js';
import { freePort } from '../../common/ports.js';
import { repoRoot } from '../lib/paths.js';
import { httpOk } from '../lib/probe.js';
import { Supervisor, type Component, type RestartPolicy } from '../lib/supervisor.js';
import { launch } from '../../common/component-starter.js';
import { ProcessGroup } from '../../common/processes.js';
import { regionsJson, type LocalRegion } from './regions.js';
import { platformSecrets } from './secrets.js';

/** Options of {@link startPlatform}. */
export interface PlatformOptions {
  /** Holds control-plane/, local/ and logs/. */
  dir: string;
  kubeconfigPath?: string;
  apiPort: number;
  edgePort: number;
  vectorsPort: number;
  enginePort: number;
  agentDomain: string;
  /**
   * The regions to run (`SVC_LOCAL_REGIONS`), the first being home. Each one
   * after the first is a kube-apiserver of its own on the same etcd, with its
   * own engine and operator; the API server gets them all as its registry.
   * Unset: one region, configured as before.
   */
  regions?: string[];
  /** fsync etcd (default true). */
  durable?: boolean;
  log?: (line: string) => void;
  /** When to restart a component that exits, and when to give up (tests shorten it). */
  restartPolicy?: Partial<RestartPolicy>;
  /** Called after a component was restarted (its pid changed). */
  onRestart?: (name: string) => void;
  /** Called once when a component keeps failing, after everything has been stopped. */
  onGiveUp?: (error: Error) => void;
}

/** A running platform. */
export interface Platform {
  controlPlane: ControlPlane;
  services: ProcessGroup;
  apiUrl: string;
  edgeUrl: string;
  vectorsUrl: string;
  engineUrl: string;
  /** Every region when `regions` was given (the first is home), with its API and engine. */
  regions: LocalRegion[];
  /** The processes of the regions after the first (kube-apiserver, controller manager). */
  regionProcesses: ProcessGroup;
  /** The engine's API key, for tools that call the engine directly (benchmarks). */
  engineApiKey: string;
  /**
   * Each process's Prometheus listener (`GET /metrics`), by component name
   * (`apiserver`, `operator`, `engine`, and a further region's
   * `operator-<region>`, `engine-<region>`); ports chosen once, kept across restarts.
   */
  metricsUrls: Record<string, string>;
  mongoUri: string;
  /** Keeps every component running; its report is in `statusFile`. */
  supervisor: Supervisor;
  statusFile: string;
  stop(): Promise<void>;
}

/** `process.env` without the platform's secrets, for children to add back only what they need. */
function inheritedEnv(): NodeJS.ProcessEnv {
  const {
    SVC_INTERNAL_SECRET: _secret,
    SVC_INTERNAL_SECRET_FILE: _secretFile,
    SVC_ENGINE_API_KEY: _key,
    SVC_ENGINE_API_KEY_FILE: _keyFile,
    ...env
  } = process.env;
  return env;
}

function withDatabase(uri: string, database: string): string {
  const url = new URL(uri);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * A platform process run by Node with tsx; ready once it prints a line
 * starting with `readiness` (a string), or once `readiness()` is true.
 */
function nodeComponent(
  group: ProcessGroup,
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  readiness: string | (() => Promise<boolean>),
  nodeFlags: readonly string[] = [],
): Component {
  return {
    name,
    group,
    launch: () =>
      launch(group, {
        name,
        command: process.execPath,
        // One process (no tsx CLI wrapper), so the parent-death signal reaches the server itself;
        // an .mjs entry point registers tsx itself (operator/main.mjs).
        args: entry.endsWith('.mjs')
          ? [...nodeFlags, join(repoRoot, entry)]
          : [...nodeFlags, '--import', 'tsx', join(repoRoot, entry)],
        cwd: repoRoot,
        env,
        readyWhen:
          typeof readiness === 'string'
            ? { line: (line) => (line.startsWith(readiness) ? line : undefined) }
            : { probe: readiness },
      }),
  };
}

/** Starts the platform and resolves once every part answers. */
export async function startPlatform(opts: PlatformOptions): Promise<Platform> {
  let controlPlane: ControlPlane | undefined;
  const logDir = join(opts.dir, 'logs');
  const services = new ProcessGroup(logDir);
  const regionProcesses = new ProcessGroup(join(opts.dir, 'control-plane', 'logs'));
  const statusFile = join(opts.dir, 'platform-status.json');
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await supervisor.stop();
      await services.stopAll();
      await regionProcesses.stopAll();
      await controlPlane?.stop();
    })());
  const supervisor = new Supervisor({
    policy: opts.restartPolicy,
    statusFile,
    log: (line) => {
      opts.log?.(line);
      appendFileSync(join(logDir, 'platform.log'), `${new Date().toISOString()} ${line}\n`);
    },
    onRestart: (name) => opts.onRestart?.(name),
    onGiveUp: (error) => void stop().then(() => opts.onGiveUp?.(error)),
  });
  try {
    const { internalSecret, engineApiKey } = await platformSecrets(opts.dir);
    controlPlane = await startControlPlane({
      dir: join(opts.dir, 'control-plane'),
      kubeconfigPath: opts.kubeconfigPath,
      durable: opts.durable,
      log: opts.log,
      supervisor,
    });
    const mongoUri = withDatabase(controlPlane.mongoUri, 'svc');
    const names = opts.regions ?? [];
    // The embedded vector engine, with its data beside the rest; a further region's has its own.
    const engineUrl = `http://127.0.0.1:${opts.enginePort}`;
    const regions: LocalRegion[] = [
      { name: names[0] ?? 'local', kubeconfigPath: controlPlane.kubeconfigPath, engineUrl },
    ];
    const engines = [{ name: 'engine', port: opts.enginePort, dataDir: join(opts.dir, 'engine') }];
    for (const name of names.slice(1)) {
      const api = await startRegionApi({
        name,
        controlPlane,
        group: regionProcesses,
        supervisor,
      });
      opts.log?.(`platform: region ${name}: kube-apiserver ready at ${api.apiServerUrl}`);
      const port = await freePort();
      regions.push({
        name,
        kubeconfigPath: api.kubeconfigPath,
        engineUrl: `http://127.0.0.1:${port}`,
      });
      engines.push({
        name: `engine-${name}`,
        port,
        dataDir: join(opts.dir, 'regions', name, 'engine'),
      });
    }
    const metricsUrls: Record<string, string> = {};
    /** A free port for `component`'s metrics, recorded in `metricsUrls`. */
    const metricsPort = async (component: string): Promise<string> => {
      const port = await freePort();
      metricsUrls[component] = `http://127.0.0.1:${port}/metrics`;
      return String(port);
    };
    for (const engine of engines) {
      const engineMetricsPort = await metricsPort(engine.name);
      await supervisor.start(
        nodeComponent(
          services,
          engine.name,
          'engine/src/main.ts',
          {
            ...inheritedEnv(),
            SVC_ENGINE_PORT: String(engine.port),
            SVC_ENGINE_DATA_DIR: engine.dataDir,
            SVC_ENGINE_API_KEY_FILE: engineApiKey.path,
            SVC_ENGINE_METRICS_PORT: engineMetricsPort,
          },
          '{"ready":"engine"',
        ),
      );
    }
    const apiUrl = `http://127.0.0.1:${opts.apiPort}`;
    const { SVC_REGIONS: _names, SVC_REGIONS_FILE: _file, ...apiserverBase } = inheritedEnv();
    const apiserverEnv = {
      ...(opts.regions ? apiserverBase : inheritedEnv()),
      SVC_API_PORT: String(opts.apiPort),
      SVC_EDGE_PORT: String(opts.edgePort),
      SVC_VECTORS_PORT: String(opts.vectorsPort),
      SVC_ENGINE_URL: engineUrl,
      SVC_ENGINE_API_KEY_FILE: engineApiKey.path,
      SVC_INTERNAL_SECRET_FILE: internalSecret.path,
      SVC_AGENT_DOMAIN: opts.agentDomain,
      MONGODB_URI: mongoUri,
      KUBECONFIG: controlPlane.kubeconfigPath,
      SVC_PLATFORM_STATUS_FILE: statusFile,
      SVC_METRICS_PORT: await metricsPort('apiserver'),
      // The registry naming every region's API and engine.
      ...(opts.regions ? { SVC_REGIONS_JSON: regionsJson(regions) } : {}),
    };
    await supervisor.start(
      nodeComponent(
        services,
        'apiserver',
        'apiserver/src/main.ts',
        apiserverEnv,
        () => httpOk(`${apiUrl}/readiness`),
        API_SERVER_NODE_FLAGS,
      ),
    );
    // An operator per region with the local driver, watching only its region's API:
    // agents run as child processes of it.
    for (const [i, region] of regions.entries()) {
      const home = i === 0;
      const operatorEnv = {
        ...inheritedEnv(),
        KUBECONFIG: region.kubeconfigPath,
        SVC_REGION: region.name,
        SVC_INTERNAL_SECRET_FILE: internalSecret.path,
        SVC_DRIVER: 'local',
        SVC_LOCAL_DIR: home
          ? join(opts.dir, 'local')
          : join(opts.dir, 'regions', region.name, 'local'),
        SVC_INTERNAL_API_URL: apiUrl,
        SVC_API_URL: apiUrl,
        SVC_VECTORS_URL: `http://127.0.0.1:${opts.vectorsPort}`,
        SVC_AGENT_DOMAIN: opts.agentDomain,
        SVC_AGENT_PORT: String(opts.edgePort),
        SVC_OPERATOR_LEASE_SECONDS: '5',
        SVC_METRICS_PORT: await metricsPort(home ? 'operator' : `operator-${region.name}`),
      };
      await supervisor.start(
        nodeComponent(
          services,
          home ? 'operator' : `operator-${region.name}`,
          'operator/main.mjs',
          operatorEnv,
          '{"ready":"operator"',
        ),
      );
    }
    return {
      controlPlane,
      services,
      apiUrl,
      edgeUrl: `http://127.0.0.1:${opts.edgePort}`,
      vectorsUrl: `http://127.0.0.1:${opts.vectorsPort}`,
      engineUrl,
      regions: opts.regions ? regions : [],
      regionProcesses,
      engineApiKey: engineApiKey.value,
      metricsUrls,
      mongoUri,
      supervisor,
      statusFile,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

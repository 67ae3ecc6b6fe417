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
import { startControlPlane, type ControlPlane } from '../control-plane/index.js';
import { repoRoot } from '../lib/paths.js';
import { httpOk } from '../lib/probe.js';
import { Supervisor, type Component, type RestartPolicy } from '../lib/supervisor.js';
import { launch } from '../../common/component-starter.js';
import { ProcessGroup } from '../../common/processes.js';
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
  /** The engine's API key, for tools that call the engine directly (benchmarks). */
  engineApiKey: string;
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
): Component {
  return {
    name,
    group,
    launch: () =>
      launch(group, {
        name,
        command: process.execPath,
        // One process (no tsx CLI wrapper), so the parent-death signal reaches the server itself.
        args: ['--import', 'tsx', join(repoRoot, entry)],
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
  const statusFile = join(opts.dir, 'platform-status.json');
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await supervisor.stop();
      await services.stopAll();
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
    // The embedded vector engine, with its data beside the rest.
    const engineUrl = `http://127.0.0.1:${opts.enginePort}`;
    await supervisor.start(
      nodeComponent(
        services,
        'engine',
        'engine/src/main.ts',
        {
          ...inheritedEnv(),
          SVC_ENGINE_PORT: String(opts.enginePort),
          SVC_ENGINE_DATA_DIR: join(opts.dir, 'engine'),
          SVC_ENGINE_API_KEY_FILE: engineApiKey.path,
        },
        '{"ready":"engine"',
      ),
    );
    const apiUrl = `http://127.0.0.1:${opts.apiPort}`;
    const apiserverEnv = {
      ...inheritedEnv(),
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
    };
    await supervisor.start(
      nodeComponent(services, 'apiserver', 'apiserver/src/main.ts', apiserverEnv, () =>
        httpOk(`${apiUrl}/readiness`),
      ),
    );
    // The operator with the local driver: agents run as child processes of it.
    const operatorEnv = {
      ...inheritedEnv(),
      KUBECONFIG: controlPlane.kubeconfigPath,
      SVC_INTERNAL_SECRET_FILE: internalSecret.path,
      SVC_DRIVER: 'local',
      SVC_LOCAL_DIR: join(opts.dir, 'local'),
      SVC_INTERNAL_API_URL: apiUrl,
      SVC_API_URL: apiUrl,
      SVC_VECTORS_URL: `http://127.0.0.1:${opts.vectorsPort}`,
      SVC_AGENT_DOMAIN: opts.agentDomain,
      SVC_AGENT_PORT: String(opts.edgePort),
      SVC_OPERATOR_LEASE_SECONDS: '5',
    };
    await supervisor.start(
      nodeComponent(
        services,
        'operator',
        'operator/src/main.ts',
        operatorEnv,
        '{"ready":"operator"',
      ),
    );
    return {
      controlPlane,
      services,
      apiUrl,
      edgeUrl: `http://127.0.0.1:${opts.edgePort}`,
      vectorsUrl: `http://127.0.0.1:${opts.vectorsPort}`,
      engineUrl,
      engineApiKey: engineApiKey.value,
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

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
 */
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../control-plane/index.js';
import { repoRoot } from '../lib/paths.js';
import { httpOk } from '../lib/probe.js';
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

/** Starts the platform and resolves once every part answers. */
export async function startPlatform(opts: PlatformOptions): Promise<Platform> {
  let controlPlane: ControlPlane | undefined;
  const services = new ProcessGroup(join(opts.dir, 'logs'));
  const stop = async () => {
    await services.stopAll();
    await controlPlane?.stop();
  };
  try {
    const { internalSecret, engineApiKey } = await platformSecrets(opts.dir);
    controlPlane = await startControlPlane({
      dir: join(opts.dir, 'control-plane'),
      kubeconfigPath: opts.kubeconfigPath,
      durable: opts.durable,
      log: opts.log,
    });
    const mongoUri = withDatabase(controlPlane.mongoUri, 'svc');
    // The embedded vector engine, with its data beside the rest.
    const engineUrl = `http://127.0.0.1:${opts.enginePort}`;
    let engineReady = false;
    const engine = services.start({
      name: 'engine',
      command: process.execPath,
      args: ['--import', 'tsx', join(repoRoot, 'engine', 'src', 'main.ts')],
      cwd: repoRoot,
      env: {
        ...inheritedEnv(),
        SVC_ENGINE_PORT: String(opts.enginePort),
        SVC_ENGINE_DATA_DIR: join(opts.dir, 'engine'),
        SVC_ENGINE_API_KEY_FILE: engineApiKey.path,
      },
      onStdoutLine: (line) => {
        if (line.startsWith('{"ready":"engine"')) engineReady = true;
      },
    });
    await services.waitReady(engine, async () => engineReady, 60_000);
    const apiUrl = `http://127.0.0.1:${opts.apiPort}`;
    const apiserver = services.start({
      name: 'apiserver',
      command: process.execPath,
      // One process (no tsx CLI wrapper), so the parent-death signal reaches the server itself.
      args: ['--import', 'tsx', join(repoRoot, 'apiserver', 'src', 'main.ts')],
      cwd: repoRoot,
      env: {
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
      },
    });
    await services.waitReady(apiserver, () => httpOk(`${apiUrl}/readiness`), 60_000);
    // The operator with the local driver: agents run as child processes of it.
    let operatorReady = false;
    const operator = services.start({
      name: 'operator',
      command: process.execPath,
      args: ['--import', 'tsx', join(repoRoot, 'operator', 'src', 'main.ts')],
      cwd: repoRoot,
      env: {
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
      },
      onStdoutLine: (line) => {
        if (line.startsWith('{"ready":"operator"')) operatorReady = true;
      },
    });
    await services.waitReady(operator, async () => operatorReady, 60_000);
    return {
      controlPlane,
      services,
      apiUrl,
      edgeUrl: `http://127.0.0.1:${opts.edgePort}`,
      vectorsUrl: `http://127.0.0.1:${opts.vectorsPort}`,
      engineUrl,
      engineApiKey: engineApiKey.value,
      mongoUri,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

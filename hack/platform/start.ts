/**
 * `npm start`: the single-machine platform in the foreground. Starts the local
 * control plane (etcd, kube-apiserver, kube-controller-manager, FerretDB) with
 * its state kept in `.dev/`, then the API server (control plane and agent
 * edge) and the operator with the local driver (agents as child processes),
 * writes `.dev/env`, and stops everything on Ctrl-C. A failure while starting stops what had started.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { envInt } from '../../common/env.js';
import { startControlPlane, type ControlPlane } from '../control-plane/index.js';
import {
  clearRecordedProcesses,
  recordProcesses,
  stopRecordedProcesses,
} from '../control-plane/pidfile.js';
import { devDir, repoRoot } from '../lib/paths.js';
import { httpOk } from '../lib/probe.js';
import { ProcessGroup } from '../../common/processes.js';
import { readEnvFileValue, writeEnvFile } from './env-file.js';
import { bootstrapKey } from './bootstrap.js';

const pidFile = join(devDir, 'platform.pids');

function withDatabase(uri: string, database: string): string {
  const url = new URL(uri);
  url.pathname = `/${database}`;
  return url.toString();
}

async function main(): Promise<void> {
  const started = Date.now();
  await mkdir(devDir, { recursive: true });
  await stopRecordedProcesses(pidFile);
  const apiPort = envInt('SVC_API_PORT', 8000, { min: 1, max: 65535 });
  const edgePort = envInt('SVC_EDGE_PORT', 8002, { min: 1, max: 65535 });
  const agentDomain = process.env.SVC_AGENT_DOMAIN || 'agents.localhost';

  let controlPlane: ControlPlane | undefined;
  const services = new ProcessGroup(join(devDir, 'logs'));
  const stop = async () => {
    await services.stopAll();
    await controlPlane?.stop();
    await clearRecordedProcesses(pidFile);
  };
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (stopping) return;
      stopping = true;
      console.log(`platform: ${signal}, stopping`);
      void stop().then(() => process.exit(0));
    });
  }

  try {
    controlPlane = await startControlPlane({
      dir: join(devDir, 'control-plane'),
      kubeconfigPath: join(devDir, 'kubeconfig'),
      log: (line) => console.log(line),
    });
    const mongoUri = withDatabase(controlPlane.mongoUri, 'svc');
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const apiserver = services.start({
      name: 'apiserver',
      command: process.execPath,
      // One process (no tsx CLI wrapper), so the parent-death signal reaches the server itself.
      args: ['--import', 'tsx', join(repoRoot, 'apiserver', 'src', 'main.ts')],
      cwd: repoRoot,
      env: {
        ...process.env,
        SVC_API_PORT: String(apiPort),
        SVC_EDGE_PORT: String(edgePort),
        SVC_AGENT_DOMAIN: agentDomain,
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
        ...process.env,
        KUBECONFIG: controlPlane.kubeconfigPath,
        SVC_DRIVER: 'local',
        SVC_LOCAL_DIR: join(devDir, 'local'),
        SVC_INTERNAL_API_URL: apiUrl,
        SVC_API_URL: apiUrl,
        SVC_AGENT_DOMAIN: agentDomain,
        SVC_AGENT_PORT: String(edgePort),
        SVC_OPERATOR_LEASE_SECONDS: '5',
      },
      onStdoutLine: (line) => {
        if (line.startsWith('{"ready":"operator"')) operatorReady = true;
      },
    });
    await services.waitReady(operator, async () => operatorReady, 60_000);
    const envPath = join(devDir, 'env');
    const bootstrap = await bootstrapKey(mongoUri, await readEnvFileValue(envPath, 'SVC_API_KEY'));
    await recordProcesses(pidFile, [...controlPlane.processes.processes, ...services.processes]);
    await writeEnvFile(envPath, {
      SVC_API_URL: apiUrl,
      SVC_EDGE_URL: `http://127.0.0.1:${edgePort}`,
      SVC_AGENT_DOMAIN: agentDomain,
      SVC_API_KEY: bootstrap.key,
      KUBECONFIG: controlPlane.kubeconfigPath,
      MONGODB_URI: mongoUri,
    });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`platform: up in ${seconds} s`);
    console.log(
      `platform:   API          ${apiUrl}/api/v1/health   (OpenAPI: ${apiUrl}/openapi.json)`,
    );
    console.log(
      `platform:   agents       http://<name>-<6 chars>.${agentDomain}:${edgePort} (the edge)`,
    );
    console.log(
      `platform:   account      bootstrap ${bootstrap.accountId}, key in .dev/env as SVC_API_KEY${bootstrap.created ? ' (new)' : ''}`,
    );
    console.log(
      `platform:   kubectl      kubectl --kubeconfig .dev/kubeconfig get agents,agentdeployments,workspaces -A`,
    );
    console.log(`platform:   environment  .dev/env   logs .dev/logs/ and .dev/control-plane/logs/`);
    console.log('platform: Ctrl-C stops everything');
  } catch (err) {
    console.error(`platform: failed to start: ${(err as Error).message}`);
    await stop();
    process.exit(1);
  }
}

await main();

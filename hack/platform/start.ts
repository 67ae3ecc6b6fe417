/**
 * `npm start`: the single-machine platform in the foreground (see
 * platform.ts), with its state kept in `.dev/`; writes `.dev/env` and stops
 * everything on Ctrl-C. Processes left by a killed earlier run are stopped
 * first. A component that crashes is restarted (the pid record follows it);
 * when restarts keep failing, everything stops and the exit status is 1.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { envInt } from '../../common/env.js';
import {
  clearRecordedProcesses,
  recordProcesses,
  stopRecordedProcesses,
} from '../control-plane/pidfile.js';
import { devDir } from '../lib/paths.js';
import { bootstrapKey } from './bootstrap.js';
import { readEnvFileValue, writeEnvFile } from './env-file.js';
import { startPlatform, type Platform } from './platform.js';
import { localRegionNames, regionsJson } from './regions.js';

const pidFile = join(devDir, 'platform.pids');

async function main(): Promise<void> {
  const started = Date.now();
  await mkdir(devDir, { recursive: true });
  await stopRecordedProcesses(pidFile);
  const apiPort = envInt('SVC_API_PORT', 8000, { min: 1, max: 65535 });
  const edgePort = envInt('SVC_EDGE_PORT', 8002, { min: 1, max: 65535 });
  const vectorsPort = envInt('SVC_VECTORS_PORT', 8001, { min: 1, max: 65535 });
  const enginePort = envInt('SVC_ENGINE_PORT', 6333, { min: 1, max: 65535 });
  const agentDomain = process.env.SVC_AGENT_DOMAIN || 'agents.localhost';
  const regions = localRegionNames(process.env.SVC_LOCAL_REGIONS);

  let platform: Platform | undefined;
  const recordPids = async () => {
    if (!platform) return;
    await recordProcesses(pidFile, [
      ...platform.controlPlane.processes.processes,
      ...platform.regionProcesses.processes,
      ...platform.services.processes,
    ]);
  };
  const stop = async () => {
    await platform?.stop();
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
    platform = await startPlatform({
      dir: devDir,
      kubeconfigPath: join(devDir, 'kubeconfig'),
      apiPort,
      edgePort,
      vectorsPort,
      enginePort,
      agentDomain,
      regions,
      log: (line) => console.log(line),
      onRestart: () => void recordPids(),
      onGiveUp: (error) => {
        console.error(`platform: stopped: ${error.message}`);
        void clearRecordedProcesses(pidFile).then(() => process.exit(1));
      },
    });
    const { apiUrl, edgeUrl, vectorsUrl, engineUrl, mongoUri, controlPlane } = platform;
    const envPath = join(devDir, 'env');
    const bootstrap = await bootstrapKey(mongoUri, await readEnvFileValue(envPath, 'SVC_API_KEY'));
    await recordPids();
    await writeEnvFile(envPath, {
      SVC_API_URL: apiUrl,
      SVC_VECTORS_URL: vectorsUrl,
      SVC_EDGE_URL: edgeUrl,
      SVC_ENGINE_URL: engineUrl,
      SVC_AGENT_DOMAIN: agentDomain,
      SVC_API_KEY: bootstrap.key,
      KUBECONFIG: controlPlane.kubeconfigPath,
      MONGODB_URI: mongoUri,
      // Prometheus listeners (GET /metrics) of the API server, the operator and the engine.
      SVC_APISERVER_METRICS_URL: platform.metricsUrls.apiserver ?? '',
      SVC_OPERATOR_METRICS_URL: platform.metricsUrls.operator ?? '',
      SVC_ENGINE_METRICS_URL: platform.metricsUrls.engine ?? '',
      // With SVC_LOCAL_REGIONS: the registry the API server runs with (each region's kubeconfig and engine).
      ...(platform.regions.length > 0 ? { SVC_REGIONS_JSON: regionsJson(platform.regions) } : {}),
    });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`platform: up in ${seconds} s`);
    console.log(
      `platform:   API          ${apiUrl}/api/v1/health   (OpenAPI: ${apiUrl}/openapi.json)`,
    );
    console.log(`platform:   vectors      ${vectorsUrl}/api/v1/collections (engine ${engineUrl})`);
    console.log(`platform:   dashboard    ${apiUrl}/dashboard/ (sign in with an API key)`);
    console.log(
      `platform:   agents       http://<name>-<6 chars>.${agentDomain}:${edgePort} (the edge)`,
    );
    console.log(
      `platform:   account      bootstrap ${bootstrap.accountId}, key in .dev/env as SVC_API_KEY${bootstrap.created ? ' (new)' : ''}`,
    );
    console.log(
      `platform:   kubectl      kubectl --kubeconfig .dev/kubeconfig get agents,agentdeployments,workspaces -A`,
    );
    for (const region of platform.regions) {
      console.log(
        `platform:   region       ${region.name}: kubectl --kubeconfig ${region.kubeconfigPath}, engine ${region.engineUrl}`,
      );
    }
    console.log(
      `platform:   metrics      ${Object.entries(platform.metricsUrls)
        .map(([name, url]) => `${name} ${url}`)
        .join(', ')}`,
    );
    console.log(`platform:   environment  .dev/env   logs .dev/logs/ and .dev/control-plane/logs/`);
    console.log(
      `platform:   supervision  a crashed component restarts; restarts in .dev/logs/platform.log and ${apiUrl}/api/v1/health`,
    );
    console.log(
      `platform:   secrets      .dev/internal-secret and .dev/engine-api-key (0600, not in .dev/env)`,
    );
    console.log('platform: Ctrl-C stops everything');
  } catch (err) {
    console.error(`platform: failed to start: ${(err as Error).message}`);
    await stop();
    process.exit(1);
  }
}

await main();

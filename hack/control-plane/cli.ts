/**
 * `npm run control-plane -- up`: starts etcd, kube-apiserver,
 * kube-controller-manager and FerretDB on loopback in the foreground, with
 * their state in `.dev/` and the kubeconfig at `.dev/kubeconfig`; Ctrl-C stops
 * them all. `npm run control-plane -- down` stops one started elsewhere.
 */
import { join } from 'node:path';
import { devDir } from '../lib/paths.js';
import { startControlPlane } from './index.js';
import { stopRecordedProcesses, recordProcesses, clearRecordedProcesses } from './pidfile.js';

const pidFile = join(devDir, 'control-plane.pids');

async function up(): Promise<void> {
  await stopRecordedProcesses(pidFile);
  const cp = await startControlPlane({
    dir: join(devDir, 'control-plane'),
    kubeconfigPath: join(devDir, 'kubeconfig'),
    log: (line) => console.log(line),
  });
  await recordProcesses(pidFile, cp.processes.processes);
  console.log(`control-plane: up; kubectl --kubeconfig ${cp.kubeconfigPath} get agents -A`);
  console.log(`control-plane: MongoDB at ${cp.mongoUri}; Ctrl-C stops everything`);
  const stop = async (signal: string) => {
    console.log(`control-plane: ${signal}, stopping`);
    await cp.stop();
    await clearRecordedProcesses(pidFile);
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

async function down(): Promise<void> {
  const stopped = await stopRecordedProcesses(pidFile);
  console.log(
    stopped ? `control-plane: stopped ${stopped} process(es)` : 'control-plane: nothing running',
  );
}

const command = process.argv[2] ?? 'up';
if (command === 'up') await up();
else if (command === 'down') await down();
else {
  console.error('usage: npm run control-plane -- up|down');
  process.exitCode = 2;
}

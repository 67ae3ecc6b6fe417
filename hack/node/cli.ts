/**
 * `hack/node.sh up`: brings the real node up in the foreground (state in `.dev/node`, the
 * kubeconfig at `.dev/node/kubeconfig`, image archives from `.dev/images` imported), Ctrl-C
 * stops it and removes it from the host. `hack/node.sh down` stops one started elsewhere and
 * cleans up after one that crashed. `hack/node.sh check` says whether this machine can run it;
 * `hack/node.sh load` imports the archives of `.dev/images` into a running node.
 */
import { join } from 'node:path';
import { devDir } from '../lib/paths.js';
import {
  clearRecordedProcesses,
  recordProcesses,
  stopRecordedProcesses,
} from '../control-plane/pidfile.js';
import { toolPath } from '../lib/tools.js';
import { cleanHost } from './host.js';
import { importImages } from './components.js';
import { archivesIn, startNode } from './index.js';
import { nodePaths } from './layout.js';
import { nodeProblems } from './preflight.js';

const dir = join(devDir, 'node');
const pidFile = join(devDir, 'node.pids');

async function up(): Promise<void> {
  await stopRecordedProcesses(pidFile);
  const node = await startNode({
    dir,
    images: await archivesIn(join(devDir, 'images')),
    log: (line) => console.log(line),
  });
  await recordProcesses(pidFile, node.processes.processes);
  console.log(`node: up; kubectl --kubeconfig ${node.kubeconfigPath} get nodes`);
  const stop = async (signal: string) => {
    console.log(`node: ${signal}, stopping`);
    const problems = await node.stop();
    await clearRecordedProcesses(pidFile);
    for (const p of problems) console.error(`node: cleanup: ${p}`);
    process.exit(problems.length ? 1 : 0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

async function down(): Promise<void> {
  const stopped = await stopRecordedProcesses(pidFile);
  await clearRecordedProcesses(pidFile);
  // The cluster tests' node (test/cluster) is the same machine's one node, in a folder of its own.
  const problems: string[] = [];
  for (const nodeDir of [dir, join(devDir, 'cluster-test', 'node')]) {
    problems.push(...(await cleanHost(nodePaths(nodeDir), toolPath('runc'))));
  }
  console.log(
    stopped ? `node: stopped ${stopped} process(es), host cleaned` : 'node: host cleaned',
  );
  for (const p of problems) console.error(`node: cleanup: ${p}`);
  if (problems.length) process.exitCode = 1;
}

/** Imports the archives of .dev/images into a running node (after hack/images.sh --local). */
async function load(): Promise<void> {
  const archives = await archivesIn(join(devDir, 'images'));
  await importImages(nodePaths(dir), archives);
  console.log(`node: imported ${archives.length} image archive(s)`);
}

async function check(): Promise<void> {
  const problems = await nodeProblems();
  if (problems.length === 0) {
    console.log('node: this machine can run the node');
    return;
  }
  console.error(`node: this machine cannot run the node:\n  - ${problems.join('\n  - ')}`);
  process.exitCode = 1;
}

const command = process.argv[2] ?? 'up';
if (command === 'up') await up();
else if (command === 'down') await down();
else if (command === 'check') await check();
else if (command === 'load') await load();
else {
  console.error('usage: hack/node.sh up|down|check|load');
  process.exitCode = 2;
}

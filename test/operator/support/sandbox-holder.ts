/**
 * A stand-in for an operator that gets killed: probes the sandbox with the
 * state directory it is given, starts one sandboxed process that outlives a
 * SIGTERM (as a server finishing requests does), prints `ready` once the
 * sandbox runs, and waits to be killed.
 *
 *   node --import tsx test/operator/support/sandbox-holder.ts <stateDir> <marker>
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../../common/logger.js';
import { ProcessGroup } from '../../../common/processes.js';
import {
  REPO_NODE_MODULES,
  runnerPaths,
} from '../../../operator/src/drivers/local/runner-command.js';
import { Sandbox } from '../../../operator/src/drivers/local/sandbox/sandbox.js';

const [stateDir = '', marker = ''] = process.argv.slice(2);
const appDir = join(stateDir, 'app');
mkdirSync(appDir, { recursive: true });
chmodSync(appDir, 0o755);
const sandbox = await Sandbox.probe({
  stateDir,
  runners: runnerPaths({ bunPath: undefined }),
  repoNodeModules: REPO_NODE_MODULES,
  publicPorts: [],
  log: createLogger('operator', 'silent'),
});
if (!(sandbox instanceof Sandbox)) throw new Error(sandbox.unavailable);
const proc = sandbox.start(new ProcessGroup(join(stateDir, 'logs')), {
  name: 'held',
  agentId: 'held-agent',
  command: '/usr/bin/python3',
  args: [
    '-c',
    'import signal, time; signal.signal(signal.SIGTERM, lambda *_: None); time.sleep(600)',
  ],
  env: { PATH: '/usr/bin:/bin', SVC_TEST_MARKER: marker },
  appDir,
  appWritable: false,
  memoryMb: 64,
  pidsMax: 16,
  scratchMb: 1,
});
await proc.setup;
console.log('ready');
setInterval(() => undefined, 60_000);

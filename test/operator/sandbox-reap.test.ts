/**
 * Sandboxes of an operator killed with SIGKILL end when an operator of the
 * same state directory starts: the sandbox's first process does not die with
 * the operator (bwrap's --die-with-parent is lost with the sandbox's change of
 * credentials), and pasta runs in the background, so they would otherwise run
 * on beside the ones the restarted operator starts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { startReady } from '../../common/component-starter.js';
import { createLogger } from '../../common/logger.js';
import { ProcessGroup } from '../../common/processes.js';
import { Sandbox } from '../../operator/src/drivers/local/sandbox/sandbox.js';
import { processStartTime } from '../../operator/src/drivers/local/sandbox/sandbox-records.js';
import {
  REPO_NODE_MODULES,
  REPO_ROOT,
  runnerPaths,
} from '../../operator/src/drivers/local/runner-command.js';

const stateDir = mkdtempSync(join(tmpdir(), 'svc-sandbox-reap-'));
const marker = `reap-${process.pid}`;
const processes = new ProcessGroup(join(stateDir, 'test-logs'));

afterAll(async () => {
  await processes.stopAll();
  rmSync(stateDir, { recursive: true, force: true });
});

/** Pids of the processes whose environment holds the marker (what `ps` cannot show). */
function markedProcesses(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      if (env.includes(`SVC_TEST_MARKER=${marker}`)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

describe('sandboxes of a killed operator', () => {
  it('are ended, pasta with them, when the next operator of the state directory starts', async () => {
    const { proc: holder } = await startReady(processes, {
      name: 'sandbox-holder',
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        join(REPO_ROOT, 'test/operator/support/sandbox-holder.ts'),
        stateDir,
        marker,
      ],
      cwd: REPO_ROOT,
      readyWhen: { line: /^ready$/ },
    });
    const [record] = readdirSync(join(stateDir, 'sandboxes'));
    const recorded = JSON.parse(
      readFileSync(join(stateDir, 'sandboxes', record ?? ''), 'utf8'),
    ) as Array<{ pid: number; startTime: string }>;
    expect(recorded.length).toBeGreaterThanOrEqual(3);

    holder.child.kill('SIGKILL');
    await holder.exited;
    // What outlived it (the sandbox's first process and the agent in it, pasta) is still there.
    await new Promise((r) => setTimeout(r, 500));
    const survivors = recorded.filter((p) => processStartTime(p.pid) === p.startTime);
    expect(survivors.length + markedProcesses().length).toBeGreaterThan(0);

    const next = await Sandbox.probe({
      stateDir,
      runners: runnerPaths({ bunPath: undefined }),
      repoNodeModules: REPO_NODE_MODULES,
      publicPorts: [],
      log: createLogger('operator', 'silent'),
    });
    expect(next).toBeInstanceOf(Sandbox);
    expect(await until(() => markedProcesses().length === 0)).toBe(true);
    expect(await until(() => recorded.every((p) => processStartTime(p.pid) !== p.startTime))).toBe(
      true,
    );
    expect(readdirSync(join(stateDir, 'sandboxes'))).toEqual([]);
  });
});

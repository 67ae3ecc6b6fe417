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
import { waitFor } from '../harness/wait.js';
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

/** The kernel's PF_EXITING, in the flags of /proc/<pid>/stat: the process is ending. */
const PF_EXITING = 0x4;
/** SIGKILL's bit in the pending masks of /proc/<pid>/status. */
const SIGKILL_BIT = 1n << 8n;

/** State and flags of `pid` from /proc/<pid>/stat; null once it is gone. */
function statOf(pid: number): { state: string; flags: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', flags: Number(fields[6]) };
  } catch {
    return null;
  }
}

/** Whether a process in `state` has ended (a zombie, or being reaped): it sent what its end sends. */
const ended = (state: string) => state === 'Z' || state === 'X';

/**
 * Whether `pid` is on its way out: exiting, or a fatal signal pending (the kernel marks every
 * one, a parent-death signal too, with SIGKILL in the pending masks until the process is
 * reaped), and not a zombie yet.
 */
function dying(pid: number): boolean {
  const stat = statOf(pid);
  if (!stat || ended(stat.state)) return false;
  if (stat.flags & PF_EXITING) return true;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const pending = (mask: string) =>
      BigInt(`0x${new RegExp(`^${mask}:\\s*([0-9a-f]+)`, 'm').exec(status)?.[1] ?? '0'}`);
    return ((pending('SigPnd') | pending('ShdPnd')) & SIGKILL_BIT) !== 0n;
  } catch {
    return false; // gone meanwhile
  }
}

/** Whether `pid` runs: there, and no zombie. */
function running(pid: number): boolean {
  const stat = statOf(pid);
  return stat !== null && !ended(stat.state);
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
    // What outlived it (the sandbox's first process and the agent in it, pasta) is still there
    // once every death its end causes has played out. The kernel sends the parent-death signals
    // while the holder exits, before its exit is reported; each process they reach, and each one
    // those take with them, shows as dying until it is a zombie. So when two looks in a row find
    // none dying, nothing more is to die of the holder's end.
    const same = (p: { pid: number; startTime: string }) => processStartTime(p.pid) === p.startTime;
    const watched = () => [...recorded.filter(same).map((p) => p.pid), ...markedProcesses()];
    const survivors = await waitFor(
      "the killed holder's sandbox processes to finish dying",
      () => {
        for (let look = 0; look < 2; look++) if (watched().some(dying)) return undefined;
        return watched().filter(running);
      },
      { timeoutMs: 10_000, everyMs: 20, lastSeen: () => watched().filter(dying) },
    );
    expect(survivors.length).toBeGreaterThan(0);

    const next = await Sandbox.probe({
      stateDir,
      runners: runnerPaths({ bunPath: undefined }),
      repoNodeModules: REPO_NODE_MODULES,
      publicPorts: [],
      log: createLogger('operator', 'silent'),
    });
    expect(next).toBeInstanceOf(Sandbox);
    // Ended with SIGKILL by the probe before it resolved; /proc shows them go.
    await waitFor(
      'the marked processes of the killed holder to end',
      () => markedProcesses().length === 0,
      { timeoutMs: 10_000, everyMs: 20, lastSeen: markedProcesses },
    );
    await waitFor(
      'the recorded processes of the killed holder to end',
      () => !recorded.some(same),
      { timeoutMs: 10_000, everyMs: 20, lastSeen: () => recorded.filter(same) },
    );
    expect(readdirSync(join(stateDir, 'sandboxes'))).toEqual([]);
  });
});

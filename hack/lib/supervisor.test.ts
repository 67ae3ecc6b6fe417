import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { readComponentReport } from '../../common/component-status.js';
import { ProcessGroup, type ManagedProcess } from '../../common/processes.js';
import { Supervisor, type Component, type SupervisorOptions } from './supervisor.js';
import { waitFor } from '../../test/harness/wait.js';

let dir: string;
let group: ProcessGroup;
let supervisor: Supervisor | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-supervisor-'));
  group = new ProcessGroup(join(dir, 'logs'));
});
afterEach(async () => {
  await supervisor?.stop();
  await group.stopAll(1000);
  await rm(dir, { recursive: true, force: true });
  jest.useRealTimers();
});

/**
 * Puts the supervisor's timers on jest's clock, which keeps pace with real time until
 * {@link afterAnyRestart} makes it jump: a test that must see that nothing is restarted
 * looks once the longest delay a restart could wait has passed on it.
 */
function onJestClock(): void {
  jest.useFakeTimers({
    advanceTimers: true,
    doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'],
  });
}

/** Jumps jest's clock past `delayMs`, the longest a restart could be waiting for. */
async function afterAnyRestart(delayMs: number): Promise<void> {
  await jest.advanceTimersByTimeAsync(delayMs);
}

/** Called by every callback of the supervisor and the component: wakes {@link until}. */
let changed = () => {};

/** A component whose n-th instance (0 = the first start) runs `script(n)` in bash; ready once it prints "ready". */
function component(script: (n: number) => string) {
  const launched: ManagedProcess[] = [];
  const spec: Component = {
    name: 'thing',
    group,
    launch: () => {
      let ready = false;
      const proc = group.start({
        name: 'thing',
        command: 'bash',
        args: ['-c', script(launched.length)],
        onStdoutLine: (line) => {
          if (line === 'ready') ready = true;
        },
      });
      launched.push(proc);
      changed();
      return { proc, ready: async () => ready };
    },
  };
  return { spec, launched };
}

function supervise(opts: SupervisorOptions & { lines: string[] }) {
  const { lines, onRestart, onGiveUp, ...rest } = opts;
  supervisor = new Supervisor({
    statusFile: join(dir, 'status.json'),
    log: (line) => {
      lines.push(line);
      changed();
    },
    onRestart: (name, proc) => {
      onRestart?.(name, proc);
      changed();
    },
    onGiveUp: (err) => {
      onGiveUp?.(err);
      changed();
    },
    ...rest,
  });
  return supervisor;
}

/** Waits until `condition` holds, checked again at each launch, log line, restart or give-up. */
function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<true> {
  return waitFor(what, condition, {
    timeoutMs,
    wakeOn: (wake) => {
      changed = wake;
      return () => (changed = () => {});
    },
  });
}

describe('Supervisor', () => {
  it('restarts a killed component with the same command and says so in the log and the report', async () => {
    const lines: string[] = [];
    const restarted: number[] = [];
    const { spec, launched } = component(() => 'echo ready; exec sleep 30');
    const sup = supervise({
      lines,
      policy: { initialDelayMs: 50 },
      onRestart: (_, proc) => restarted.push(proc.pid),
    });
    const first = await sup.start(spec);
    expect((await readComponentReport(join(dir, 'status.json')))?.thing).toMatchObject({
      state: 'running',
      restarts: 0,
      last_exit: null,
    });

    process.kill(first.pid, 'SIGKILL');
    await until('the restart', () => restarted.length === 1);

    expect(launched).toHaveLength(2);
    expect(restarted[0]).toBe(launched[1]!.pid);
    expect(launched[1]!.child.exitCode).toBeNull();
    expect(lines[0]).toMatch(
      /^platform: thing exited \(signal SIGKILL\); restarting in 0\.05 s \(restart 1 of at most 6 in 10 min\)$/,
    );
    expect(lines[1]).toMatch(
      /^platform: thing restarted \(pid \d+, ready after [\d.]+ s; 1 restart so far\)$/,
    );
    await sup.stop();
    const report = await readComponentReport(join(dir, 'status.json'));
    expect(report?.thing).toMatchObject({
      state: 'running',
      restarts: 1,
      last_exit: 'signal SIGKILL',
    });
    expect(Date.parse(report!.thing!.last_exit_at!)).toBeLessThanOrEqual(Date.now());
  });

  it('doubles the delay with each failure in a row, up to the cap, then gives up and restarts nothing more', async () => {
    const lines: string[] = [];
    const gaveUp: Error[] = [];
    // Every instance serves briefly, then crashes.
    const { spec, launched } = component(() => 'echo ready; sleep 0.3; exit 3');
    onJestClock();
    const sup = supervise({
      lines,
      policy: { initialDelayMs: 100, maxDelayMs: 400, maxRestarts: 4, windowMs: 60_000 },
      onGiveUp: (err) => gaveUp.push(err),
    });
    await sup.start(spec);
    await until('the supervisor to give up', () => gaveUp.length === 1, 20_000);

    const delays = lines
      .map((line) => /restarting in ([\d.]+) s/.exec(line)?.[1])
      .filter((delay) => delay !== undefined);
    expect(delays).toEqual(['0.1', '0.2', '0.4', '0.4']);
    expect(launched).toHaveLength(5);
    expect(gaveUp[0]!.message).toMatch(
      /^thing keeps failing \(last: exit code 3; 4 restarts within 1 min\); giving up and stopping the platform; its log: .*thing\.log$/,
    );
    expect(lines.at(-1)).toBe(`platform: ${gaveUp[0]!.message}`);
    await afterAnyRestart(400);
    expect(launched).toHaveLength(5);
    await sup.stop();
    expect((await readComponentReport(join(dir, 'status.json')))?.thing).toMatchObject({
      state: 'failed',
      restarts: 4,
      last_exit: 'exit code 3',
    });
  });

  it('counts a restart that exits before it is ready, or is never ready, as a failure', async () => {
    const lines: string[] = [];
    const gaveUp: Error[] = [];
    const { spec, launched } = component((n) =>
      n === 0 ? 'echo ready; exec sleep 30' : n === 1 ? 'exit 7' : 'exec sleep 30',
    );
    const sup = supervise({
      lines,
      policy: { initialDelayMs: 20, maxRestarts: 2, readyTimeoutMs: 500 },
      onGiveUp: (err) => gaveUp.push(err),
    });
    const first = await sup.start(spec);
    process.kill(first.pid, 'SIGKILL');
    await until('the supervisor to give up', () => gaveUp.length === 1);

    expect(launched).toHaveLength(3);
    expect(lines).toContainEqual(
      expect.stringMatching(/^platform: thing restart failed: exit code 7; see /),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^platform: thing restart failed: not ready after 0\.5 s; see /),
    );
    // The instance that never became ready was stopped, not left running.
    expect(launched[2]!.child.signalCode).toBe('SIGTERM');
    expect(gaveUp[0]!.message).toMatch(
      /^thing keeps failing \(last: not ready after 0\.5 s; 2 restarts/,
    );
  });

  it('starts from the first delay again once an instance has served long enough', async () => {
    const lines: string[] = [];
    const restarted: number[] = [];
    const { spec, launched } = component(() => 'echo ready; exec sleep 30');
    onJestClock();
    const sup = supervise({
      lines,
      policy: { initialDelayMs: 50, healthyResetMs: 300 },
      onRestart: (_, proc) => restarted.push(proc.pid),
    });
    let serving = await sup.start(spec);
    for (let restart = 1; restart <= 3; restart++) {
      // Each instance serves 0.3 s, long enough, on the supervisor's clock, then dies.
      await jest.advanceTimersByTimeAsync(300);
      process.kill(serving.pid, 'SIGKILL');
      await until(`restart ${restart}`, () => restarted.length === restart);
      serving = launched[restart]!;
    }
    expect(launched).toHaveLength(4);
    const delays = lines
      .map((line) => /restarting in ([\d.]+) s/.exec(line)?.[1])
      .filter((delay) => delay !== undefined);
    expect(delays).toEqual(['0.05', '0.05', '0.05']);
  });

  it('restarts nothing once stopped', async () => {
    const lines: string[] = [];
    const { spec, launched } = component(() => 'echo ready; exec sleep 30');
    onJestClock();
    const sup = supervise({ lines, policy: { initialDelayMs: 20 } });
    const first = await sup.start(spec);
    await sup.stop();
    process.kill(first.pid, 'SIGKILL');
    await first.exited;
    await afterAnyRestart(20);
    expect(launched).toHaveLength(1);
    expect(lines).toEqual([]);
  });

  it('restarts nothing of a group that is being stopped', async () => {
    const lines: string[] = [];
    const { spec, launched } = component(() => 'echo ready; exec sleep 30');
    onJestClock();
    const sup = supervise({ lines, policy: { initialDelayMs: 20 } });
    const first = await sup.start(spec);
    await group.stopAll(1000);
    await expect(first.exited).resolves.toBe('SIGTERM');
    await afterAnyRestart(20);
    expect(launched).toHaveLength(1);
    expect(lines).toEqual([]);
  });

  it('does not retry a first start that fails', async () => {
    const { spec, launched } = component(() => 'echo broken >&2; exit 2');
    onJestClock();
    const sup = supervise({ lines: [], policy: { initialDelayMs: 20 } });
    await expect(sup.start(spec)).rejects.toThrow(/thing exited \(2\) before it was ready\nbroken/);
    await afterAnyRestart(20);
    expect(launched).toHaveLength(1);
  });
});

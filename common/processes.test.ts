import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProcessGroup, type ManagedProcess } from './processes.js';
import { waitFor, type ChangeSource } from '../test/harness/wait.js';

const logDir = () => mkdtempSync(join(tmpdir(), 'svc-proc-'));
/** Running and not a zombie waiting to be reaped. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

/** A flag that a callback sets, with the change source that tells a wait about it. */
function flag(): { set: () => void; isSet: () => boolean; changes: ChangeSource } {
  let value = false;
  const listeners = new Set<() => void>();
  return {
    set: () => {
      value = true;
      for (const listener of listeners) listener();
    },
    isSet: () => value,
    changes: (changed) => {
      listeners.add(changed);
      return () => listeners.delete(changed);
    },
  };
}

/** The first line `start` hands its `onStdoutLine`, and its wait (5 s). */
function firstLine() {
  const lines: string[] = [];
  const got = flag();
  return {
    onStdoutLine: (line: string) => {
      lines.push(line);
      got.set();
    },
    next: () =>
      waitFor('the first line of its output', () => lines[0], {
        timeoutMs: 5000,
        wakeOn: got.changes,
      }),
  };
}

/**
 * A wait for `pid`, which inherited `proc`'s stdout pipe, to be gone: first the pipe closes,
 * once every process holding it (the child and what it forked) has closed its files on the way
 * out, then /proc shows the exit the kernel finishes just after. Fails after 5 s naming `what`.
 */
function exitOf(proc: ManagedProcess): (what: string, pid: number) => Promise<void> {
  const closed = flag();
  proc.child.stdout!.once('close', closed.set);
  return async (what, pid) => {
    await waitFor(`${what} (the output pipe it holds to close)`, closed.isSet, {
      timeoutMs: 5000,
      wakeOn: closed.changes,
    });
    await waitFor(`${what} (gone from /proc once its pipe closed)`, () => !alive(pid), {
      timeoutMs: 5000,
    });
  };
}

describe('ProcessGroup', () => {
  it('stops what a child forked as well', async () => {
    const group = new ProcessGroup(logDir());
    const output = firstLine();
    const leader = group.start({
      name: 'forker',
      command: 'bash',
      args: ['-c', 'sleep 30 & echo $!; wait'],
      onStdoutLine: output.onStdoutLine,
    });
    const gone = exitOf(leader);
    const grandchild = Number(await output.next());
    expect(alive(grandchild)).toBe(true);
    await group.stopAll();
    await gone('the forked sleep to exit', grandchild);
    expect(alive(grandchild)).toBe(false);
  });

  it('kills what a child forked once the child itself has exited, even if it ignored SIGTERM', async () => {
    const group = new ProcessGroup(logDir());
    const output = firstLine();
    const leader = group.start({
      name: 'leaver',
      command: 'bash',
      args: ['-c', '(trap "" TERM; exec sleep 30) & echo $!; sleep 30'],
      onStdoutLine: output.onStdoutLine,
    });
    const gone = exitOf(leader);
    const grandchild = Number(await output.next());
    expect(alive(grandchild)).toBe(true);
    // Only the leader is signalled, as when it dies on its own.
    process.kill(leader.pid, 'SIGTERM');
    await leader.exited;
    await gone('the forked sleep to be killed', grandchild);
    expect(alive(grandchild)).toBe(false);
  });

  it('stop leaves nothing of the group when a forked process ignores SIGTERM', async () => {
    const group = new ProcessGroup(logDir());
    const output = firstLine();
    const leader = group.start({
      name: 'stubborn-fork',
      command: 'bash',
      args: ['-c', '(trap "" TERM; exec sleep 30) & echo $!; wait'],
      onStdoutLine: output.onStdoutLine,
    });
    const gone = exitOf(leader);
    const grandchild = Number(await output.next());
    await group.stop(leader, 5000);
    await gone('the forked sleep to be killed', grandchild);
    expect(alive(grandchild)).toBe(false);
  });

  it('stops every child it started', async () => {
    const group = new ProcessGroup(logDir());
    const a = group.start({ name: 'a', command: 'sleep', args: ['30'] });
    const b = group.start({ name: 'b', command: 'sleep', args: ['30'] });
    expect(alive(a.pid) && alive(b.pid)).toBe(true);
    await group.stopAll();
    await expect(a.exited).resolves.toBe('SIGTERM');
    await expect(b.exited).resolves.toBe('SIGTERM');
  });

  it('kills a child that ignores SIGTERM after the grace period', async () => {
    const group = new ProcessGroup(logDir());
    const output = firstLine();
    const stubborn = group.start({
      name: 'stubborn',
      command: 'bash',
      args: ['-c', 'trap "" TERM; echo trapped; while :; do sleep 0.1; done'],
      onStdoutLine: output.onStdoutLine,
    });
    // SIGTERM once it ignores it.
    expect(await output.next()).toBe('trapped');
    await group.stopAll(300);
    await expect(stubborn.exited).resolves.toBe('SIGKILL');
    expect(alive(stubborn.pid)).toBe(false);
  });

  it('fails waitReady with the log tail when the child exits first', async () => {
    const group = new ProcessGroup(logDir());
    const proc = group.start({
      name: 'crasher',
      command: 'bash',
      args: ['-c', 'echo "bad flag --nope" >&2; exit 3'],
    });
    await expect(group.waitReady(proc, async () => false, 5000)).rejects.toThrow(
      /crasher exited \(3\) before it was ready\n.*bad flag --nope/,
    );
  });

  it('fails waitReady after the timeout when the child never becomes ready', async () => {
    const group = new ProcessGroup(logDir());
    const proc = group.start({ name: 'slow', command: 'sleep', args: ['30'] });
    await expect(group.waitReady(proc, async () => false, 300)).rejects.toThrow(
      /slow was not ready after 300 ms/,
    );
    await group.stopAll();
  });

  it('hands stdout lines to onStdoutLine', async () => {
    const group = new ProcessGroup(logDir());
    const lines: string[] = [];
    const proc = group.start({
      name: 'talker',
      command: 'printf',
      args: ['one\\ntwo\\n'],
      onStdoutLine: (line) => lines.push(line),
    });
    await proc.exited;
    expect(lines).toEqual(['one', 'two']);
  });

  it('leaves no child behind when the parent is killed with SIGKILL', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/spawn-sleeper.ts', import.meta.url));
    const parent = spawn(process.execPath, ['--import', 'tsx', fixture], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once('data', (chunk: Buffer) =>
        resolve((JSON.parse(chunk.toString()) as { pid: number }).pid),
      );
      parent.once('exit', () => reject(new Error('fixture exited early')));
    });
    expect(alive(pid)).toBe(true);
    const parentExited = new Promise((resolve) => parent.once('exit', resolve));
    parent.kill('SIGKILL');
    // The kernel signals the sleeper as the parent exits (its parent-death signal); the
    // sleeper holds nothing of this process's to close, so its end is looked for in /proc.
    await parentExited;
    await waitFor('the sleeper to be gone once its parent was killed', () => !alive(pid), {
      timeoutMs: 5000,
    });
  });
});

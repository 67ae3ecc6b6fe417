import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProcessGroup } from './processes.js';

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

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

describe('ProcessGroup', () => {
  it('stops what a child forked as well', async () => {
    const group = new ProcessGroup(logDir());
    const lines: string[] = [];
    group.start({
      name: 'forker',
      command: 'bash',
      args: ['-c', 'sleep 30 & echo $!; wait'],
      onStdoutLine: (l) => lines.push(l),
    });
    expect(await waitUntil(() => lines.length > 0)).toBe(true);
    const grandchild = Number(lines[0]);
    expect(alive(grandchild)).toBe(true);
    await group.stopAll();
    expect(await waitUntil(() => !alive(grandchild))).toBe(true);
  });

  it('kills what a child forked once the child itself has exited, even if it ignored SIGTERM', async () => {
    const group = new ProcessGroup(logDir());
    const lines: string[] = [];
    const leader = group.start({
      name: 'leaver',
      command: 'bash',
      args: ['-c', '(trap "" TERM; exec sleep 30) & echo $!; sleep 30'],
      onStdoutLine: (l) => lines.push(l),
    });
    expect(await waitUntil(() => lines.length > 0)).toBe(true);
    const grandchild = Number(lines[0]);
    expect(alive(grandchild)).toBe(true);
    // Only the leader is signalled, as when it dies on its own.
    process.kill(leader.pid, 'SIGTERM');
    await leader.exited;
    expect(await waitUntil(() => !alive(grandchild))).toBe(true);
  });

  it('stop leaves nothing of the group when a forked process ignores SIGTERM', async () => {
    const group = new ProcessGroup(logDir());
    const lines: string[] = [];
    const leader = group.start({
      name: 'stubborn-fork',
      command: 'bash',
      args: ['-c', '(trap "" TERM; exec sleep 30) & echo $!; wait'],
      onStdoutLine: (l) => lines.push(l),
    });
    expect(await waitUntil(() => lines.length > 0)).toBe(true);
    const grandchild = Number(lines[0]);
    await group.stop(leader, 5000);
    expect(await waitUntil(() => !alive(grandchild))).toBe(true);
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
    const stubborn = group.start({
      name: 'stubborn',
      command: 'bash',
      args: ['-c', 'trap "" TERM; while :; do sleep 0.1; done'],
    });
    await new Promise((r) => setTimeout(r, 200));
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
    parent.kill('SIGKILL');
    expect(await waitUntil(() => !alive(pid))).toBe(true);
  });
});

import { describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessGroup } from '../../../../common/processes.js';
import { SupervisedService } from './supervised-service.js';

const dir = () => mkdtempSync(join(tmpdir(), 'svc-supervised-'));

/** A real HTTP server on the Unix socket $SOCKET that answers /health and exits with `code` after `lifeMs`. */
function script(lifeMs: number, code: number): string {
  return `require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.SOCKET);
setTimeout(() => process.exit(${code}), ${lifeMs});`;
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function service(lifeMs: number, code: number, events: string[]) {
  const d = dir();
  mkdirSync(join(d, 'sock'));
  const socket = join(d, 'sock', 'app.sock');
  return new SupervisedService(new ProcessGroup(join(d, 'logs')), {
    name: 'svc',
    command: { command: process.execPath, args: ['-e', script(lifeMs, code)], env: {} },
    cwd: d,
    env: { SOCKET: socket },
    socket,
    errorFile: join(d, 'error.txt'),
    onStdout: () => undefined,
    onStderr: () => undefined,
    onEvent: (message) => events.push(message),
    initialBackoffMs: 100,
    maxBackoffMs: 400,
  });
}

describe('SupervisedService', () => {
  it('becomes ready when /health answers, and restarts with growing backoff after crashes', async () => {
    const events: string[] = [];
    const s = service(400, 1, events);
    s.start();
    await until(() => s.state === 'ready');
    await until(() => events.filter((e) => e.startsWith('service exited (1)')).length >= 2);
    // Each restart listens again on the socket the crashed process left behind.
    await until(() => s.state === 'ready');
    expect(events[0]).toContain(`service started on unix:${s.opts.socket} `);
    expect(events[0]).toMatch(/ \(answering \d+ ms after its process started\)$/);
    const delays = events
      .filter((e) => e.startsWith('service exited'))
      .map((e) => e.replace(/.*restarting in /, ''));
    expect(delays.slice(0, 2)).toEqual(['0.1 s', '0.2 s']);
    await s.stop();
    expect(s.state).toBe('stopped');
    expect(existsSync(join(s.opts.socket, '..'))).toBe(false);
  });

  it('never restarts an entry point that failed to import, and keeps its message', async () => {
    const events: string[] = [];
    const s = service(0, 3, events);
    writeFileSync(s.opts.errorFile, "ModuleNotFoundError: No module named 'nope'\n");
    s.start();
    await until(() => s.state === 'failed');
    expect(s.failure).toBe("ModuleNotFoundError: No module named 'nope'");
    await new Promise((r) => setTimeout(r, 300));
    expect(s.state).toBe('failed');
    expect(events).toEqual([
      "service failed to start: ModuleNotFoundError: No module named 'nope'",
    ]);
  });
});

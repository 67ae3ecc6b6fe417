import { describe, expect, it, jest } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessGroup } from '../../../../common/processes.js';
import { SupervisedService } from './supervised-service.js';
import { waitFor } from '../../../../test/harness/wait.js';

const dir = () => mkdtempSync(join(tmpdir(), 'svc-supervised-'));

/** A real HTTP server on the Unix socket $SOCKET that answers /health and exits with `code` after `lifeMs`. */
function script(lifeMs: number, code: number): string {
  return `require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.SOCKET);
setTimeout(() => process.exit(${code}), ${lifeMs});`;
}

/**
 * A service whose events are recorded in `events`, and `until`, which waits for a condition on
 * it, checked again at each event (every state it reaches is announced by one).
 */
function service(lifeMs: number, code: number) {
  const d = dir();
  mkdirSync(join(d, 'sock'));
  const socket = join(d, 'sock', 'app.sock');
  const events: string[] = [];
  const listeners = new Set<() => void>();
  const s = new SupervisedService(new ProcessGroup(join(d, 'logs')), {
    name: 'svc',
    command: { command: process.execPath, args: ['-e', script(lifeMs, code)], env: {} },
    cwd: d,
    env: { SOCKET: socket },
    socket,
    errorFile: join(d, 'error.txt'),
    onStdout: () => undefined,
    onStderr: () => undefined,
    onEvent: (message) => {
      events.push(message);
      for (const listener of listeners) listener();
    },
    initialBackoffMs: 100,
    maxBackoffMs: 400,
  });
  const until = (what: string, check: () => boolean) =>
    waitFor(what, check, {
      timeoutMs: 10_000,
      wakeOn: (changed) => {
        listeners.add(changed);
        return () => listeners.delete(changed);
      },
      lastSeen: () => ({ state: s.state, events }),
    });
  return { s, events, until };
}

describe('SupervisedService', () => {
  it('becomes ready when /health answers, and restarts with growing backoff after crashes', async () => {
    const { s, events, until } = service(400, 1);
    s.start();
    await until('the service to be ready', () => s.state === 'ready');
    await until(
      'two crashes of the service',
      () => events.filter((e) => e.startsWith('service exited (1)')).length >= 2,
    );
    // Each restart listens again on the socket the crashed process left behind.
    await until('the service to be ready again', () => s.state === 'ready');
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
    const { s, events, until } = service(0, 3);
    writeFileSync(s.opts.errorFile, "ModuleNotFoundError: No module named 'nope'\n");
    // The service's timers are jest's (their clock keeps pace with real time until told to
    // jump), so a restart it scheduled cannot hide behind a back-off still to run.
    jest.useFakeTimers({
      advanceTimers: true,
      doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'],
    });
    try {
      s.start();
      await until('the service to fail', () => s.state === 'failed');
      expect(s.failure).toBe("ModuleNotFoundError: No module named 'nope'");
      // Past the longest back-off: any restart would have started by now.
      await jest.advanceTimersByTimeAsync(400);
      expect(s.state).toBe('failed');
      expect(events).toEqual([
        "service failed to start: ModuleNotFoundError: No module named 'nope'",
      ]);
    } finally {
      jest.useRealTimers();
      await s.stop();
    }
  });
});

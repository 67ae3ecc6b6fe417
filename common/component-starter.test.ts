import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { launch, readyLine, startReady, waitUntilReady } from './component-starter.js';
import { freePort } from './ports.js';
import { ProcessGroup } from './processes.js';
import { waitFor } from '../test/harness/wait.js';

const group = () => new ProcessGroup(mkdtempSync(join(tmpdir(), 'svc-starter-')));
const node = (script: string) => ({ command: process.execPath, args: ['-e', script] });
/** Running and not a zombie waiting to be reaped. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

/** A node child that listens on a loopback port after a moment and prints its ready line. */
const server = `
  const s = require('node:http').createServer((q, r) => r.end('ok'));
  setTimeout(() => s.listen(0, '127.0.0.1', () => {
    console.log('starting');
    console.log(JSON.stringify({ ready: 'demo', url: 'http://127.0.0.1:' + s.address().port }));
  }), 100);
`;

describe('startReady', () => {
  it('resolves with what the ready line announced, and the child serves there', async () => {
    const g = group();
    const { proc, announced } = await startReady(g, {
      name: 'demo',
      ...node(server),
      readyWhen: { line: readyLine('demo') },
    });
    expect(announced).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(announced)).text()).toBe('ok');
    expect(alive(proc.pid)).toBe(true);
    await g.stopAll();
  });

  it('takes a regex, and a port that must accept connections', async () => {
    const g = group();
    const port = await freePort();
    const { announced } = await startReady(g, {
      name: 'listener',
      ...node(`
        console.log('up on ${port}');
        setTimeout(() => require('node:net').createServer().listen(${port}, '127.0.0.1'), 300);
      `),
      readyWhen: { line: /^up on \d+$/, port },
    });
    expect(announced).toBe(`up on ${port}`);
    const connected = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    expect(connected).toBe(true);
    await g.stopAll();
  });

  it('fails with the tail of stderr when the child exits before it is ready', async () => {
    await expect(
      startReady(group(), {
        name: 'refuser',
        ...node(`console.error('refusing to start: no key'); process.exit(2)`),
        readyWhen: { line: readyLine('refuser') },
      }),
    ).rejects.toThrow(/refuser exited \(2\) before it was ready\n.*refusing to start: no key/);
  });

  it('kills a child that is not ready in time', async () => {
    const failure = startReady(group(), {
      name: 'mute',
      ...node(`console.error('still loading in ' + process.pid); setInterval(() => {}, 1000)`),
      readyWhen: { line: /^ready$/ },
      timeoutMs: 1000,
    });
    await expect(failure).rejects.toThrow(
      /mute was not ready after 1000 ms\n.*still loading in \d+/,
    );
    const pid = Number(/still loading in (\d+)/.exec(String(await failure.catch((e) => e)))?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
  });
});

describe('launch', () => {
  it('reports ready only once every condition holds', async () => {
    const g = group();
    let healthy = false;
    let printed = () => {};
    const started = launch(g, {
      name: 'probed',
      ...node(`console.log('hello'); setInterval(() => {}, 1000)`),
      onStdoutLine: () => printed(),
      readyWhen: { line: /hello/, probe: async () => healthy },
    });
    // Checked again as each line comes out.
    await waitFor('the hello line announced', () => started.announced() !== undefined, {
      timeoutMs: 10_000,
      wakeOn: (changed) => {
        printed = changed;
        return () => (printed = () => {});
      },
    });
    expect(await started.ready()).toBe(false);
    healthy = true;
    expect(await started.ready()).toBe(true);
    await g.stopAll();
  });
});

describe('waitUntilReady', () => {
  it('waits for a check given once the component runs', async () => {
    const g = group();
    const started = launch(g, { name: 'late', ...node(server), readyWhen: {} });
    let served = '';
    await waitUntilReady(g, {
      proc: started.proc,
      // The URL is only in the component's log once it runs.
      ready: async () => {
        const line = readFileSync(started.proc.logFile, 'utf8').split('\n')[1] ?? '';
        served = await (await fetch(readyLine('demo')(line) ?? '')).text();
        return served === 'ok';
      },
    });
    expect(served).toBe('ok');
    await g.stopAll();
  });

  it('stops a component that does not pass the check in time, naming it', async () => {
    const g = group();
    const stuck = launch(g, {
      name: 'stuck',
      ...node('setInterval(() => {}, 1000)'),
      readyWhen: {},
    });
    await expect(
      waitUntilReady(g, { proc: stuck.proc, ready: async () => false }, 500),
    ).rejects.toThrow(/stuck was not ready after 500 ms/);
    // Stopped before the failure came: its exit has been seen (and it was reaped).
    expect(alive(stuck.proc.pid)).toBe(false);
  });
});

describe('readyLine', () => {
  it('reads a field of the named JSON ready line and nothing else', () => {
    expect(readyLine('engine')('{"ready":"engine","url":"http://x"}')).toBe('http://x');
    expect(readyLine('engine')('{"ready":"operator","url":"http://x"}')).toBeUndefined();
    expect(readyLine()('{"ready":"operator","url":"http://y"}')).toBe('http://y');
    expect(readyLine('operator', 'identity')('{"ready":"operator","identity":"op-1"}')).toBe(
      'op-1',
    );
    expect(readyLine('engine')('{"ready":"engine"')).toBeUndefined();
    expect(readyLine('engine')('listening')).toBeUndefined();
  });
});

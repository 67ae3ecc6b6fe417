/**
 * SVC_AWAIT_NETWORK (what the local driver sets for a sandboxed service, whose network pasta
 * wires while the runner starts): the Python and Node runners load the user's entry point only
 * once the network namespace has a default route. Each runner is started in a network
 * namespace of its own with no route (`unshare -rn`); the entry point writes a marker file when
 * imported; the route is added a second later.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { makeAppDir, removeAppDirs, repoRoot } from './runner-process.js';

const python = join(repoRoot, '.tools', 'runner-venv', 'bin', 'python');
const runners = {
  python: {
    command: [python, '-m', 'svc_runner'],
    env: { PYTHONPATH: join(repoRoot, 'operator', 'runners', 'python') },
    entrypoint: 'main.py',
    source: (marker: string) => `
import pathlib
pathlib.Path(${JSON.stringify(marker)}).write_text("imported")

async def app(scope, receive, send):
    pass
`,
  },
  node: {
    command: [process.execPath, join(repoRoot, 'operator', 'runners', 'node', 'runner.mjs')],
    env: {},
    entrypoint: 'index.mjs',
    source: (marker: string) => `
import { writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(marker)}, 'imported');
export const app = (req, res) => res.end('ok');
`,
  },
};

afterAll(removeAppDirs);

/**
 * Runs `runner serve` in a namespace without a route; says whether its entry point was imported
 * before the route came (EARLY) and after it (LOADED).
 */
async function importedWhen(kind: keyof typeof runners, awaitNetwork: boolean): Promise<string> {
  const runner = runners[kind];
  const dir = await makeAppDir({});
  const marker = join(dir, 'imported');
  const app = await makeAppDir({ [runner.entrypoint]: runner.source(marker) });
  const quoted = [...runner.command, 'serve', '--app-dir', app, '--entrypoint', runner.entrypoint]
    .concat(['--socket', join(dir, 'app.sock')])
    .map((word) => `'${word}'`)
    .join(' ');
  const script = [
    `${quoted} >/dev/null 2>&1 & pid=$!`,
    'sleep 1.5',
    `[ -e '${marker}' ] && echo EARLY`,
    'ip link set lo up && ip route add default dev lo',
    `for i in $(seq 200); do [ -e '${marker}' ] && break; sleep 0.05; done`,
    `[ -e '${marker}' ] && echo LOADED`,
    'kill $pid; wait $pid',
    'exit 0',
  ].join('\n');
  const child = spawn('unshare', ['-rn', 'sh', '-c', script], {
    env: {
      ...process.env,
      ...runner.env,
      ...(awaitNetwork ? { SVC_AWAIT_NETWORK: '1' } : { SVC_AWAIT_NETWORK: '' }),
    },
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.resume();
  await new Promise((resolve) => child.on('close', resolve));
  return out.trim();
}

describe.each(Object.keys(runners) as (keyof typeof runners)[])('the %s runner', (kind) => {
  it('with SVC_AWAIT_NETWORK=1, imports the entry point only once the network has a route', async () => {
    expect(await importedWhen(kind, true)).toBe('LOADED');
  }, 30_000);

  it('without it, imports the entry point at once', async () => {
    expect(await importedWhen(kind, false)).toBe('EARLY\nLOADED');
  }, 30_000);
});

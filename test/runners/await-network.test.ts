/**
 * SVC_AWAIT_NETWORK (what the local driver's sandbox gives a service, whose network pasta wires
 * while the runner starts): the Python and Node runners import the user's entry point only once
 * the file it names exists. The entry point writes a marker when imported; the file is made a
 * second and a half after the runner started.
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
 * Runs `runner serve` with SVC_AWAIT_NETWORK naming a file that does not exist yet (or with
 * none); says whether its entry point was imported before the file came (EARLY) and after
 * (LOADED).
 */
async function importedWhen(kind: keyof typeof runners, awaitNetwork: boolean): Promise<string> {
  const runner = runners[kind];
  const dir = await makeAppDir({});
  const marker = join(dir, 'imported');
  const ready = join(dir, 'network-ready');
  const app = await makeAppDir({ [runner.entrypoint]: runner.source(marker) });
  const quoted = [...runner.command, 'serve', '--app-dir', app, '--entrypoint', runner.entrypoint]
    .concat(['--socket', join(dir, 'app.sock')])
    .map((word) => `'${word}'`)
    .join(' ');
  const script = [
    `${quoted} >/dev/null 2>&1 & pid=$!`,
    'sleep 1.5',
    `[ -e '${marker}' ] && echo EARLY`,
    `touch '${ready}'`,
    `for i in $(seq 200); do [ -e '${marker}' ] && break; sleep 0.05; done`,
    `[ -e '${marker}' ] && echo LOADED`,
    'kill $pid; wait $pid',
    'exit 0',
  ].join('\n');
  const child = spawn('sh', ['-c', script], {
    env: { ...process.env, ...runner.env, SVC_AWAIT_NETWORK: awaitNetwork ? ready : '' },
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.resume();
  await new Promise((resolve) => child.on('close', resolve));
  return out.trim();
}

describe.each(Object.keys(runners) as (keyof typeof runners)[])('the %s runner', (kind) => {
  it('with SVC_AWAIT_NETWORK, imports the entry point only once the file it names exists', async () => {
    expect(await importedWhen(kind, true)).toBe('LOADED');
  }, 30_000);

  it('without it, imports the entry point at once', async () => {
    expect(await importedWhen(kind, false)).toBe('EARLY\nLOADED');
  }, 30_000);
});

#!/usr/bin/env node
// Creates the Python virtual environment the engine's differential tests and benchmark use
// (.tools/venv) and installs hack/python/requirements.txt into it, skipping the work when the
// venv exists and the requirements have not changed since the last install: a SHA-256 of the
// requirements file is kept in .tools/venv/.requirements.sha256 once pip has succeeded. Plain
// Node with no dependencies, so it runs before node_modules exists.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const venv = join(root, '.tools', 'venv');
const requirements = join(root, 'hack', 'python', 'requirements.txt');
const stamp = join(venv, '.requirements.sha256');
const python = join(venv, 'bin', 'python');

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.error) {
    console.error(`ensure-venv: could not run ${command}: ${result.error.message}`);
    process.exit(1);
  }
  if (result.status !== 0) {
    console.error(`ensure-venv: \`${command} ${args.join(' ')}\` failed (exit ${result.status})`);
    process.exit(result.status ?? 1);
  }
}

const wanted = createHash('sha256').update(readFileSync(requirements)).digest('hex');
const installed = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
if (existsSync(python) && installed === wanted) process.exit(0);

const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });
if (probe.error || probe.status !== 0) {
  console.error(
    'ensure-venv: python3 was not found on PATH; install Python 3.10 or newer (with its venv ' +
      'module, e.g. the python3-venv package on Debian) and run this again',
  );
  process.exit(1);
}

const started = Date.now();
if (!existsSync(python)) {
  console.log(`ensure-venv: creating ${venv} with ${probe.stdout.trim()} ...`);
  // A half-made venv (an earlier run interrupted) would make `venv` fail; start clean.
  rmSync(venv, { recursive: true, force: true });
  run('python3', ['-m', 'venv', venv]);
}
console.log('ensure-venv: installing hack/python/requirements.txt ...');
run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', requirements]);
writeFileSync(stamp, `${wanted}\n`);
console.log(
  `ensure-venv: Python packages ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);

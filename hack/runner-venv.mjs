#!/usr/bin/env node
// Creates the virtual environment the Python runner runs in (.tools/runner-venv) and installs
// operator/runners/python/requirements.txt into it. The work is skipped when the venv exists and
// the requirements have not changed since the last successful install: their SHA-256 is kept in
// .tools/runner-venv/.requirements.sha256, written only after pip succeeds, so an interrupted
// install is retried. Plain Node with no dependencies, so it runs before node_modules exists.
// Usage: node hack/runner-venv.mjs   (the runner is then .tools/runner-venv/bin/python)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const venv = join(root, '.tools', 'runner-venv');
const requirements = join(root, 'operator', 'runners', 'python', 'requirements.txt');
const stamp = join(venv, '.requirements.sha256');
const python = join(venv, 'bin', 'python');

/**
 * Runs a command with inherited output and stops the script when it fails.
 * @param {string} command
 * @param {string[]} args
 */
function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.error) {
    console.error(`runner-venv: could not run ${command}: ${result.error.message}`);
    process.exit(1);
  }
  if (result.status !== 0) {
    console.error(`runner-venv: \`${command} ${args.join(' ')}\` failed (exit ${result.status})`);
    process.exit(result.status ?? 1);
  }
}

const wanted = createHash('sha256').update(readFileSync(requirements)).digest('hex');
const installed = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
if (existsSync(python) && installed === wanted) process.exit(0);

const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });
if (probe.error || probe.status !== 0) {
  console.error(
    'runner-venv: python3 was not found on PATH; the Python runner needs Python 3.11 or newer ' +
      'with its venv module (e.g. the python3-venv package on Debian). Install it and run ' +
      '`node hack/runner-venv.mjs` again.',
  );
  process.exit(1);
}

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
if (!existsSync(python)) {
  console.log(`runner-venv: creating ${relative(root, venv)} with ${probe.stdout.trim()} ...`);
  // A half-made venv (an earlier run interrupted) would make `venv` fail; start clean.
  rmSync(venv, { recursive: true, force: true });
  run('python3', ['-m', 'venv', venv]);
  console.log(`runner-venv: venv created (${elapsed()})`);
}
console.log(`runner-venv: installing ${relative(root, requirements)} ...`);
run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', requirements]);
writeFileSync(stamp, `${wanted}\n`);
console.log(`runner-venv: Python runner ready in ${elapsed()}`);

// Creates a Python virtual environment and installs a requirements file into it, skipping the
// work when the venv exists and the requirements have not changed since the last successful
// install (their SHA-256 is kept in <venv>/.requirements.sha256, written only after pip
// succeeds, so an interrupted install is retried). Plain Node with no dependencies, so it runs
// before node_modules exists. Used by hack/runner-venv.mjs and hack/python/ensure-venv.mjs.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Ensures `venv` has `requirements` installed; exits the process with a message on failure.
 * @param {{ root: string, venv: string, requirements: string, label: string, purpose: string }} options
 */
export function ensureVenv({ root, venv, requirements, label, purpose }) {
  const stamp = join(venv, '.requirements.sha256');
  const python = join(venv, 'bin', 'python');
  const run = (command, args) => {
    const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
    if (result.error) {
      console.error(`${label}: could not run ${command}: ${result.error.message}`);
      process.exit(1);
    }
    if (result.status !== 0) {
      console.error(`${label}: \`${command} ${args.join(' ')}\` failed (exit ${result.status})`);
      process.exit(result.status ?? 1);
    }
  };

  const wanted = createHash('sha256').update(readFileSync(requirements)).digest('hex');
  const installed = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
  if (existsSync(python) && installed === wanted) return python;

  const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    console.error(
      `${label}: python3 was not found on PATH; ${purpose} needs Python 3.10 or newer with its ` +
        'venv module (e.g. the python3-venv package on Debian). Install it and run this again.',
    );
    process.exit(1);
  }
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  if (!existsSync(python)) {
    console.log(`${label}: creating ${relative(root, venv)} with ${probe.stdout.trim()} ...`);
    // A half-made venv (an earlier run interrupted) would make `venv` fail; start clean.
    rmSync(venv, { recursive: true, force: true });
    run('python3', ['-m', 'venv', venv]);
  }
  console.log(`${label}: installing ${relative(root, requirements)} ...`);
  run(python, [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--disable-pip-version-check',
    '-r',
    requirements,
  ]);
  writeFileSync(stamp, `${wanted}\n`);
  console.log(`${label}: ready in ${elapsed()}`);
  return python;
}

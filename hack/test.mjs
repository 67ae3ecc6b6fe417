#!/usr/bin/env node
// `npm test`: installs what the tests need (hack/ensure.mjs, quick when all is in place), then
// with no arguments runs the whole gate: lint, typecheck, the CRD manifests up to date, and every
// jest test. With arguments (`npm test -- test/vector/points.test.ts`, `npm test -- -t 'renames'`)
// it is the fast path for people: only jest, with those arguments, and jest's global setup boots
// only the components the selected files use (test/harness/needs.ts). Prints how long each
// phase took. Plain Node, as it runs before node_modules exists.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const phases = [];

/** Runs one phase in the foreground; stops the run with its exit status when it fails. */
function phase(name, command, commandArgs) {
  const started = Date.now();
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit' });
  const seconds = Math.round((Date.now() - started) / 1000);
  phases.push(`${name} ${seconds} s`);
  if (result.status !== 0 || result.error) {
    console.log(`test: ${phases.join(', ')}; ${name} failed`);
    process.exit(result.status || 1);
  }
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
phase('ensure', process.execPath, [join(root, 'hack', 'ensure.mjs')]);
if (args.length === 0) {
  phase('lint', npm, ['run', '--silent', 'lint']);
  phase('typecheck', npm, ['run', '--silent', 'typecheck']);
  phase('crds:check', npm, ['run', '--silent', 'crds:check']);
}
phase('jest', npm, ['run', '--silent', 'test:jest', '--', ...args]);
console.log(`test: ${phases.join(', ')}`);

#!/usr/bin/env node
// The test loop's numbers (#36), each beside its target and the baseline measured before the
// work: `npm run test:unit`, one integration file through `npm test -- <file>`, and with
// `--full` the whole `npm test` (its phases, and jest's own wall time from the timing reporter's
// .dev/test-times.json). Run it on a warm machine with nothing else running:
//   node bench/test-loop.mjs [--full]
// Plain Node: it times the commands as a user runs them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const full = process.argv.includes('--full');

/** Runs `npm args...` quietly; its wall time in seconds and its output. */
function timed(args) {
  const started = Date.now();
  const result = spawnSync('npm', args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = (Date.now() - started) / 1000;
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) {
    console.error(output.slice(-4000));
    throw new Error(`npm ${args.join(' ')} failed (exit ${result.status})`);
  }
  return { seconds, output };
}

const rows = [];
const row = (what, seconds, target, baseline) =>
  rows.push(
    `${what.padEnd(46)} ${seconds.toFixed(1).padStart(7)} s   target ${target.padEnd(9)} baseline ${baseline}`,
  );

row('npm run test:unit', timed(['run', 'test:unit']).seconds, '<= 90 s', '66-81 s (one worker)');
row(
  'npm test -- test/vector/points.test.ts',
  timed(['test', '--', 'test/vector/points.test.ts']).seconds,
  '< 30 s',
  'lint + typecheck + the file (no fast path)',
);
if (full) {
  const run = timed(['test']);
  const phases = /^test: (.*)$/m.exec(run.output)?.[1] ?? '?';
  const times = JSON.parse(readFileSync(join(root, '.dev', 'test-times.json'), 'utf8'));
  row('npm test (whole)', run.seconds, '-', `phases: ${phases}`);
  row(
    `  its jest phase (${times.tests} tests)`,
    times.wallMs / 1000,
    '<= 720 s',
    '1,245 s for 2,845 tests (one worker, 2026-12-01)',
  );
}
console.log(rows.join('\n'));

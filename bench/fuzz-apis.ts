/**
 * Fuzzes both public APIs from their own OpenAPI documents, the way a user's
 * generated client or an attacker would: schemathesis (property-based, from
 * PyPI, installed into .tools/fuzz-venv) against the single-machine platform
 * started on free ports in a temporary directory, with a real key. Counts
 * server errors (5xx) and responses that violate the document (status code,
 * content type, body schema), per API, and exits 1 when any is found.
 *
 * Last run (25 examples per operation, seed 1, at the end of #17): control plane 1847
 * cases, vector plane 1974 cases, 0 operations failing any of the four checks.
 *
 *   npx tsx bench/fuzz-apis.ts                 # 25 examples per operation, both APIs
 *   MAX_EXAMPLES=100 SEED=7 npx tsx bench/fuzz-apis.ts
 *   APIS=vectors npx tsx bench/fuzz-apis.ts    # one API: control or vectors
 *
 * Not part of `npm test` (a run takes minutes); the reports stay in
 * .dev/fuzz/<api>.json for a look at each failure and the request that caused it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../hack/lib/paths.js';
import { ensureVenv } from '../hack/lib/venv.mjs';
import { startScratchPlatform } from '../hack/platform/scratch.js';
import { createBenchAccount } from './support/bench-account.js';

/** The checks that count: a 5xx, or an answer the API's own document does not allow. */
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
];

const maxExamples = process.env.MAX_EXAMPLES ?? '25';
const seed = process.env.SEED ?? '1';
const apis = (process.env.APIS ?? 'control,vectors').split(',');
const reportDir = join(repoRoot, '.dev', 'fuzz');
mkdirSync(reportDir, { recursive: true });

const schemathesis = join(
  ensureVenv({
    root: repoRoot,
    venv: join(repoRoot, '.tools', 'fuzz-venv'),
    requirements: join(repoRoot, 'bench', 'fuzz', 'requirements.txt'),
    label: 'fuzz-venv',
    purpose: 'the API fuzz run',
  }),
  '..',
  'schemathesis',
);

/** The operations (`METHOD /path`) that failed each check, from schemathesis' NDJSON events. */
function failingOperations(ndjson: string): Map<string, Set<string>> {
  const failing = new Map<string, Set<string>>();
  const walk = (node: unknown, operation: string | null): void => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, operation));
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    const here = typeof record.label === 'string' ? record.label : operation;
    if (record.status === 'failure' && typeof record.name === 'string' && here) {
      if (CHECKS.includes(record.name)) {
        const set = failing.get(record.name) ?? new Set<string>();
        set.add(here);
        failing.set(record.name, set);
      }
    }
    for (const value of Object.values(record)) walk(value, here);
  };
  for (const line of ndjson.split('\n')) {
    if (!line.includes('"failure"')) continue;
    try {
      walk(JSON.parse(line), null);
    } catch {
      // a truncated last line
    }
  }
  return failing;
}

const platform = await startScratchPlatform('fuzz');
let failed = false;
try {
  const account = await createBenchAccount(platform.mongoUri);
  const targets: Record<string, string> = {
    control: `${platform.apiUrl}/openapi.json`,
    vectors: `${platform.vectorsUrl}/api/v1/openapi.json`,
  };
  for (const api of apis) {
    const schema = targets[api];
    if (!schema) throw new Error(`unknown API ${api}: control or vectors`);
    const report = join(reportDir, `${api}.ndjson`);
    const started = Date.now();
    const run = spawnSync(
      schemathesis,
      [
        'run',
        schema,
        '--header',
        `Authorization: Bearer ${account.key}`,
        '--checks',
        CHECKS.join(','),
        '--max-examples',
        maxExamples,
        '--seed',
        seed,
        '--workers',
        '2',
        '--continue-on-failure',
        '--no-color',
        '--report',
        'ndjson',
        '--report-ndjson-path',
        report,
        '--output-sanitize',
        'true',
      ],
      { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
    );
    const failing = failingOperations(readFileSync(report, 'utf8'));
    const summary = run.stdout
      .split('\n')
      .filter((l) => l.length < 200 && /passed|failed|errored|Summary|operations/i.test(l));
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    console.log(`\n${api}: schemathesis exited ${run.status} after ${seconds} s`);
    for (const line of summary.slice(-8)) console.log(`  ${line.trim()}`);
    for (const check of CHECKS) {
      const operations = [...(failing.get(check) ?? [])].sort();
      console.log(`  ${check.padEnd(28)} ${operations.length} operations failing`);
      for (const operation of operations.slice(0, 15)) console.log(`      ${operation}`);
      if (operations.length > 15) console.log(`      ... and ${operations.length - 15} more`);
    }
    console.log(`  report: ${report}`);
    // Schemathesis' own exit code also counts its warnings (operations it found no data for);
    // what this run holds the APIs to is the four checks above.
    if ([...failing.values()].some((ops) => ops.size > 0)) failed = true;
    if (!/\d+ generated/.test(run.stdout)) {
      console.log(`  schemathesis generated nothing: ${run.stderr.slice(-500)}`);
      failed = true;
    }
  }
} finally {
  await platform.stop();
}
process.exit(failed ? 1 : 0);

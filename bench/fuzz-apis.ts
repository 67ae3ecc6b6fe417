/**
 * Fuzzes both public APIs from their own OpenAPI documents, the way a user's
 * generated client or an attacker would: schemathesis (property-based, from
 * PyPI, installed into .tools/fuzz-venv) against the single-machine platform
 * started on free ports in a temporary directory, with a real key. Counts
 * server errors (5xx) and responses that violate the document (status code,
 * content type, body schema), per API, and exits 1 when any is found.
 *
 * Each API is fuzzed twice: once with the path parameters schemathesis makes up
 * (almost every one a 404), and once "seeded", with them fixed to things the
 * account holds (an agent, a workspace, a collection with points, in the
 * workspace too), so the handlers behind the 404 are fuzzed as well; the
 * seeded pass runs first and leaves out DELETE so those things stay, and the
 * run fails if they are gone after it.
 *
 * Runs (25 examples per operation, seed 1): at the end of #17, control plane 1847
 * cases, vector plane 1974, 0 operations failing any of the four checks. Re-run on
 * 2026-11-27 with the routes added since: 5 control-plane operations answered 500
 * (PATCH /users/me/home-region, PUT /auth/codehost without a body; a secret key of
 * 254-255 characters on agent and workspace secrets; a version past 2^53 on cancel),
 * fixed; then control 3141 + 3218 seeded cases, vectors 2101 + 1916 seeded, 0 failing.
 * With the usage routes (GET /usage/summary?to= was a 500, fixed) and the agent id seeded
 * too: control 3575 + 3169 seeded, vectors 2102 + 1916 seeded, 0 failing; MAX_EXAMPLES=100
 * SEED=7 (before the usage routes): control 7681 + 8168, vectors 6426 + 5966, 0 failing.
 * Until then the plain pass ran first and its DELETEs removed the seeded agent and collections,
 * so the seeded passes met 404s; seeded first (and checked after): control 3106 seeded + 3643,
 * vectors 1916 seeded + 2094, 0 failing.
 *
 *   npx tsx bench/fuzz-apis.ts                 # 25 examples per operation, both APIs
 *   MAX_EXAMPLES=100 SEED=7 npx tsx bench/fuzz-apis.ts
 *   APIS=vectors npx tsx bench/fuzz-apis.ts    # one API: control or vectors
 *
 * Not part of `npm test` (a run takes minutes); the reports stay in
 * .dev/fuzz/<api>.json for a look at each failure and the request that caused it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/** Sends `body` as JSON with the key; throws unless the answer is 2xx, else returns its JSON. */
async function send(url: string, key: string, method: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * Creates what the seeded passes point at, and returns each API's fixed path
 * parameters: an agent (by name and id), a workspace, a collection of 4 dimensions with points
 * (and its twin in the workspace), a point id and a payload field.
 */
async function seedAccount(
  apiUrl: string,
  vectorsUrl: string,
  key: string,
): Promise<Record<string, Record<string, string | number>>> {
  const agent = (await send(`${apiUrl}/api/v1/agents`, key, 'POST', { name: 'fuzz-agent' })) as {
    id: string;
  };
  await send(`${apiUrl}/api/v1/workspaces`, key, 'POST', { name: 'fuzz-ws' });
  const points = Array.from({ length: 20 }, (_, i) => ({
    id: i + 1,
    vector: [1, i, i % 3, 0.5],
    payload: { group: i % 2 ? 'odd' : 'even', n: i },
  }));
  for (const base of [`${vectorsUrl}/api/v1`, `${vectorsUrl}/api/v1/workspaces/fuzz-ws`]) {
    await send(`${base}/collections`, key, 'POST', {
      name: 'fuzz',
      vectors: { size: 4, distance: 'Cosine' },
    });
    await send(`${base}/collections/fuzz/points`, key, 'PUT', { points });
  }
  return {
    control: { agent: 'fuzz-agent', agent_id: agent.id, workspace: 'fuzz-ws' },
    vectors: { name: 'fuzz', collection: 'fuzz', workspace: 'fuzz-ws', id: 1, field: 'group' },
  };
}

/**
 * Fails the run when what a seeded pass of `api` points at is gone after it
 * (so its cases could only have met 404s): the agent, or both collections.
 */
async function checkSeedsRemain(
  api: string,
  apiUrl: string,
  vectorsUrl: string,
  key: string,
): Promise<void> {
  // schemathesis ran under spawnSync, so the event loop has not yet seen the server close
  // the idle keep-alive sockets of the seeding: let it, before reusing the pool.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const urls =
    api === 'control'
      ? [`${apiUrl}/api/v1/agents/fuzz-agent`]
      : [
          `${vectorsUrl}/api/v1/collections/fuzz`,
          `${vectorsUrl}/api/v1/workspaces/fuzz-ws/collections/fuzz`,
        ];
  for (const url of urls) {
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    if (res.status !== 200)
      throw new Error(`${api}-seeded: ${url} answered ${res.status} after the pass`);
  }
}

/** A schemathesis.toml fixing path parameters to `values`. */
function parametersToml(values: Record<string, string | number>): string {
  const lines = Object.entries(values).map(([k, v]) => `"path.${k}" = ${JSON.stringify(v)}`);
  return ['[parameters]', ...lines, ''].join('\n');
}

const platform = await startScratchPlatform('fuzz');
let failed = false;
try {
  const account = await createBenchAccount(platform.mongoUri);
  const targets: Record<string, string> = {
    control: `${platform.apiUrl}/openapi.json`,
    vectors: `${platform.vectorsUrl}/api/v1/openapi.json`,
  };
  const seeds = await seedAccount(platform.apiUrl, platform.vectorsUrl, account.key);
  // The seeded pass first: the plain one sends DELETE and would remove what it points at
  // (an earlier order left the seeded pass 404s on every collection and agent route).
  const passes = apis.flatMap((api) => [
    { api, name: `${api}-seeded`, seeded: seeds[api] },
    { api, name: api, seeded: undefined },
  ]);
  for (const { api, name, seeded } of passes) {
    const schema = targets[api];
    if (!schema) throw new Error(`unknown API ${api}: control or vectors`);
    const report = join(reportDir, `${name}.ndjson`);
    const config = join(reportDir, `${name}.toml`);
    writeFileSync(config, seeded ? parametersToml(seeded) : '');
    const started = Date.now();
    const run = spawnSync(
      schemathesis,
      [
        '--config-file',
        config,
        'run',
        schema,
        ...(seeded ? ['--exclude-method', 'DELETE'] : []),
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
    if (seeded) await checkSeedsRemain(api, platform.apiUrl, platform.vectorsUrl, account.key);
    const failing = failingOperations(readFileSync(report, 'utf8'));
    const summary = run.stdout
      .split('\n')
      .filter((l) => l.length < 200 && /passed|failed|errored|Summary|operations/i.test(l));
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    console.log(`\n${name}: schemathesis exited ${run.status} after ${seconds} s`);
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

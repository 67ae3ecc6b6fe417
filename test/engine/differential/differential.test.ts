/**
 * The engine against Qdrant's own core: seeded random scenarios (collections, points,
 * filters, searches, scrolls, counts, payload and vector writes) run through the engine's
 * HTTP API and through qdrant-edge, every answer compared (the query API's variants,
 * groups, facets, conditional writes; a request the engine refuses must be a 400 saying
 * why, see query-steps.ts). SVC_DIFF_CASES sets how many
 * comparisons to make (default 3000), SVC_DIFF_SEED the first scenario's seed, and
 * SVC_DIFF_SCENARIO replays a single scenario. Needs the venv: node hack/python/ensure-venv.mjs.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { startEngine } from '../support/engine-process.js';
import type { EngineProcess } from '../support/engine-process.js';
import { EdgeDriver } from './edge-driver.js';
import { CASES_BY_KIND, runScenario } from './scenario.js';

const CASES = Number(process.env.SVC_DIFF_CASES ?? 3000);
const FIRST_SEED = Number(process.env.SVC_DIFF_SEED ?? 20251121);
const ONLY = process.env.SVC_DIFF_SCENARIO;
const STEPS = 60;

let engine: EngineProcess;
let driver: EdgeDriver;

beforeAll(async () => {
  [engine, driver] = await Promise.all([startEngine(), EdgeDriver.start()]);
});

afterAll(async () => {
  await Promise.all([engine?.dispose(), driver?.stop()]);
});

test(`answers like qdrant-edge in ${ONLY ? `scenario ${ONLY}` : `${CASES} random cases`}`, async () => {
  let checks = 0;
  let scenarios = 0;
  const seeds = ONLY ? [Number(ONLY)] : undefined;
  for (let i = 0; seeds ? i < seeds.length : checks < CASES; i++) {
    const seed = seeds ? seeds[i]! : FIRST_SEED + i;
    try {
      checks += await runScenario(seed, STEPS, engine.url, driver);
    } catch (error) {
      throw new Error(
        `${(error as Error).message}\nreplay: SVC_DIFF_SCENARIO=${seed} (first seed ${FIRST_SEED})`,
        { cause: error },
      );
    }
    scenarios++;
  }
  const kinds = [...CASES_BY_KIND].sort(([a], [b]) => a.localeCompare(b));
  console.log(
    `differential: ${checks} cases in ${scenarios} scenarios matched qdrant-edge\n` +
      kinds.map(([kind, n]) => `  ${kind}: ${n}`).join('\n'),
  );
  expect(checks).toBeGreaterThanOrEqual(ONLY ? 1 : CASES);
}, 600_000);

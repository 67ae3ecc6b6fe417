// Jest reporter that says where a run's time went: it writes every test file's wall time,
// project, test count and its five slowest tests to `.dev/test-times.json`, and prints the 15
// slowest files (and the run's wall time) when the run ends, in CI as on a laptop. Compare two
// runs' JSON files to see what a change did to the loop; test/README.md keeps the table.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** How many files the printed table lists, and how many slow tests each file records. */
const SLOWEST_FILES = 15;
const SLOWEST_TESTS = 5;

/** One test file's timing, as recorded in the JSON file. */
function fileTiming(rootDir, test, result) {
  const { start, end } = result.perfStats;
  const tests = result.testResults
    .map((t) => ({ title: t.fullName, ms: t.duration ?? 0, status: t.status }))
    .sort((a, b) => b.ms - a.ms);
  return {
    file: relative(rootDir, test.path),
    project: test.context.config.displayName?.name ?? '',
    ms: end - start,
    start,
    end,
    tests: result.testResults.length,
    failed: result.numFailingTests + (result.testExecError ? 1 : 0),
    slowest: tests.slice(0, SLOWEST_TESTS),
  };
}

/** Seconds with one decimal. */
const seconds = (ms) => (ms / 1000).toFixed(1);

export default class TimingReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.workers = globalConfig.maxWorkers;
    this.files = [];
    this.started = Date.now();
  }

  onTestResult(test, result) {
    this.files.push(fileTiming(this.rootDir, test, result));
  }

  onRunComplete(_contexts, results) {
    const wallMs = Date.now() - this.started;
    const files = [...this.files].sort((a, b) => b.ms - a.ms);
    const sumMs = files.reduce((sum, f) => sum + f.ms, 0);
    const byProject = {};
    for (const f of files) {
      const p = (byProject[f.project || 'default'] ??= { files: 0, tests: 0, ms: 0 });
      p.files += 1;
      p.tests += f.tests;
      p.ms += f.ms;
    }
    const out = join(this.rootDir, '.dev', 'test-times.json');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(
      out,
      `${JSON.stringify(
        {
          finishedAt: new Date().toISOString(),
          wallMs,
          sumOfFilesMs: sumMs,
          tests: results.numTotalTests,
          workers: this.workers,
          projects: byProject,
          files,
        },
        null,
        1,
      )}\n`,
    );
    const width = Math.max(...files.slice(0, SLOWEST_FILES).map((f) => f.file.length), 4);
    const lines = files
      .slice(0, SLOWEST_FILES)
      .map(
        (f) =>
          `  ${seconds(f.ms).padStart(7)} s  ${f.file.padEnd(width)}  ${String(f.tests).padStart(4)} tests  slowest: ${f.slowest[0] ? `${seconds(f.slowest[0].ms)} s ${f.slowest[0].title.slice(0, 60)}` : '-'}`,
      );
    process.stdout.write(
      `\nslowest ${Math.min(SLOWEST_FILES, files.length)} of ${files.length} test files (wall time each; all files together ${seconds(sumMs)} s, the run ${seconds(wallMs)} s; every file in .dev/test-times.json):\n${lines.join('\n')}\n`,
    );
  }
}

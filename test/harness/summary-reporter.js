// Jest reporter that ends the run with one plain line, `N passed, N failed, N skipped`,
// which CI reads as the run's verdict. Before it, the reports of workers that jest had to kill
// because something kept them alive (leak-environment.mjs writes them); any such report fails
// the run, as a leak kept jest from exiting when every file ran in its process.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { leaksDir } from './leak-environment.mjs';

export default class SummaryReporter {
  constructor(globalConfig) {
    this.leaks = leaksDir(globalConfig.rootDir);
    rmSync(this.leaks, { recursive: true, force: true });
  }

  onRunComplete(_contexts, results) {
    const reports = existsSync(this.leaks)
      ? readdirSync(this.leaks).map((f) => readFileSync(join(this.leaks, f), 'utf8'))
      : [];
    if (reports.length > 0) {
      process.stdout.write(`\n${reports.join('')}`);
      this.error = new Error(`${reports.length} jest worker(s) kept alive by a leak`);
    }
    const {
      numPassedTests,
      numFailedTests,
      numPendingTests,
      numTodoTests,
      numRuntimeErrorTestSuites,
    } = results;
    const failed = numFailedTests + numRuntimeErrorTestSuites + reports.length;
    process.stdout.write(
      `\n${numPassedTests} passed, ${failed} failed, ${numPendingTests + numTodoTests} skipped\n`,
    );
  }

  /** Jest fails the run when a reporter has an error to give. */
  getLastError() {
    return this.error;
  }
}

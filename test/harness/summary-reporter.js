// Jest reporter that ends the run with one plain line, `N passed, N failed, N skipped`,
// which CI reads as the run's verdict.
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const {
      numPassedTests,
      numFailedTests,
      numPendingTests,
      numTodoTests,
      numRuntimeErrorTestSuites,
    } = results;
    const failed = numFailedTests + numRuntimeErrorTestSuites;
    process.stdout.write(
      `\n${numPassedTests} passed, ${failed} failed, ${numPendingTests + numTodoTests} skipped\n`,
    );
  }
}

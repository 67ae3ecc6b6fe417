// Jest runs TypeScript through SWC as native ES modules, in two projects:
// `unit` (tests beside their source: pure logic, nothing booted) and
// `integration` (test/: real components booted once per run by
// test/harness/global-setup.mjs, which runs only when an integration test is
// selected). `npm test` runs both; `npm run test:unit` starts nothing.
/**
 * Test files run side by side in this many worker processes (`SVC_TEST_WORKERS` overrides; jest's
 * `-w` too). More than the cores: the integration files spend most of their time waiting on the
 * platform (a deployment becoming active, a runner starting), so two cores run several at once;
 * test/README.md has the measurements behind the number. Each file has its own accounts,
 * namespaces, databases and servers, so none sees another's objects.
 */
const workers = Number(process.env.SVC_TEST_WORKERS) || 4;

/** Options both projects share (and test/cluster/jest.config.js). */
export const shared = {
  // Node's environment plus a check that each file closes what it opened (see the file).
  testEnvironment: '<rootDir>/test/harness/leak-environment.mjs',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testPathIgnorePatterns: ['/node_modules/', '/.tools/', '/.dev/', '/examples/'],
  modulePathIgnorePatterns: ['<rootDir>/.tools/', '<rootDir>/.dev/'],
  testTimeout: 60000,
};

/** @type {import('jest').Config} */
export default {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/**/*.test.ts'],
      testPathIgnorePatterns: [...shared.testPathIgnorePatterns, '<rootDir>/test/'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      // test/cluster/ runs on a real node, through `npm run test:cluster` (its own config).
      testPathIgnorePatterns: [...shared.testPathIgnorePatterns, '<rootDir>/test/cluster/'],
      globalSetup: '<rootDir>/test/harness/global-setup.mjs',
      globalTeardown: '<rootDir>/test/harness/global-teardown.mjs',
    },
  ],
  // A global option: jest ignores it inside a project, where `shared` also sets it.
  testTimeout: 60000,
  maxWorkers: workers,
  // Jest's order, but files marked `@run-last` after all others (see the file).
  testSequencer: '<rootDir>/test/harness/sequencer.mjs',
  // A worker that grew past this after a file is replaced before its next one.
  workerIdleMemoryLimit: '1536MB',
  reporters: [
    'default',
    '<rootDir>/test/harness/timing-reporter.js',
    '<rootDir>/test/harness/summary-reporter.js',
  ],
  // No forceExit: a file that leaves a handle open (a keep-alive socket, a tunnel, a child)
  // fails, named with the handle, by test/harness/leak-environment.mjs; a leak is to fix, not hide.
};

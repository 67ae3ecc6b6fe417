// Jest runs TypeScript through SWC as native ES modules, in two projects:
// `unit` (tests beside their source: pure logic, nothing booted) and
// `integration` (test/: real components booted once per run by
// test/harness/global-setup.mjs, which runs only when an integration test is
// selected). `npm test` runs both; `npm run test:unit` starts nothing.
/** Options both projects share. */
const shared = {
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
      globalSetup: '<rootDir>/test/harness/global-setup.mjs',
      globalTeardown: '<rootDir>/test/harness/global-teardown.mjs',
    },
  ],
  // A global option: jest ignores it inside a project, where `shared` also sets it.
  testTimeout: 60000,
  reporters: [
    'default',
    '<rootDir>/test/harness/timing-reporter.js',
    '<rootDir>/test/harness/summary-reporter.js',
  ],
  // No forceExit: a suite that leaves a handle open (a keep-alive socket, a tunnel, a timer)
  // keeps jest from exiting, and that is a leak to fix, not to hide.
};

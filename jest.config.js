// Jest runs TypeScript through SWC as native ES modules. Unit tests live beside
// their source; integration tests in test/ share one set of real components
// booted by test/harness/global-setup.mjs.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/.tools/', '/.dev/', '/examples/'],
  modulePathIgnorePatterns: ['<rootDir>/.tools/', '<rootDir>/.dev/'],
  globalSetup: '<rootDir>/test/harness/global-setup.mjs',
  globalTeardown: '<rootDir>/test/harness/global-teardown.mjs',
  reporters: ['default', '<rootDir>/test/harness/summary-reporter.js'],
  testTimeout: 60000,
  // On 2 cores jest runs the suites in its own process; a handle some suite leaves open (a
  // keep-alive socket, a client) must not hold CI until its time limit. Finding them is
  // tracked in the session notes; the suites' own assertions are unaffected.
  forceExit: true,
};

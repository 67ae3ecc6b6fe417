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
  // No forceExit: a suite that leaves a handle open (a keep-alive socket, a tunnel, a timer)
  // keeps jest from exiting, and that is a leak to fix, not to hide.
};

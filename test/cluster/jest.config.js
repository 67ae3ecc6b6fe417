// `npm run test:cluster`: the cluster path on a real node (hack/node): the platform's images
// built here, the chart installed as the README says, agents in real pods. One worker: the
// files share one node and run in order; the global setup brings the node up (and fails,
// naming what is missing, on a machine that cannot run one), the teardown removes it.
import { fileURLToPath } from 'node:url';
import { shared } from '../../jest.config.js';

const rootDir = fileURLToPath(new URL('../..', import.meta.url));

/** @type {import('jest').Config} */
export default {
  rootDir,
  displayName: 'cluster',
  testMatch: ['<rootDir>/test/cluster/**/*.test.ts'],
  ...shared,
  globalSetup: '<rootDir>/test/cluster/global-setup.mjs',
  globalTeardown: '<rootDir>/test/cluster/global-teardown.mjs',
  maxWorkers: 1,
  // The files build on each other: by name, 01-install first.
  testSequencer: '<rootDir>/test/cluster/sequencer.mjs',
  // After `shared`: a real node's builds and rollouts take minutes.
  testTimeout: 300_000,
  reporters: ['default', '<rootDir>/test/harness/timing-reporter.js'],
};

// Jest global teardown: stops what global-setup.mjs started, pass or fail,
// then fails the run if a suite left anything open (see leak-report.mjs).
import { tsImport } from 'tsx/esm/api';
import { endLeftovers } from './leak-report.mjs';

export default async function globalTeardown() {
  const { stopComponents } = await tsImport('./boot.ts', import.meta.url);
  await stopComponents();
  // Give closing sockets and exiting children their last turn of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const leftovers = endLeftovers();
  if (leftovers.length > 0) {
    throw new Error(
      `the test run left ${leftovers.length} handle(s) open (now ended):\n  ${leftovers.join('\n  ')}`,
    );
  }
}

// Jest test environment (Node's, plus a leak check). Jest runs files side by side in worker
// processes, and a worker that will not exit when the run ends is killed by jest with a vague
// warning, so a leak would pass unseen there. Two checks take the place of "jest does not exit":
// - when a test file ends, every handle it opened that would keep the process alive (a child
//   process, a listening server, a socket, a pipe, a watcher) and every timer it left pending
//   must be gone: the file fails, naming each, and the handles are ended so the worker stays
//   usable;
// - a worker that jest must kill at the end of the run writes what kept it alive, and the file
//   it ran last, to `.dev/leaks/`; summary-reporter.js prints that and fails the run.
// leak-report.mjs still checks jest's own process in global teardown.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TestEnvironment as NodeEnvironment } from 'jest-environment-node';
import { describeHandle, endHandle } from './leak-report.mjs';

/** How long a file's handles get to close after its last hook (closing sockets, exiting children). */
const GRACE_MS = 2_000;

/** Where workers killed at the end of a run say what kept them alive (read by summary-reporter.js). */
export function leaksDir(rootDir) {
  return join(rootDir, '.dev', 'leaks');
}

/** Handles that keep this process alive, except its own stdio. */
function liveHandles() {
  return process
    ._getActiveHandles()
    .filter((h) => h !== process.stdin && h !== process.stdout && h !== process.stderr);
}

/** How many timers (setTimeout, setInterval) keep this process alive now. */
function liveTimers() {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

/** The test file this worker ran last, for the end-of-run report. */
let lastFile = '';

/** jest-worker's message telling a worker to end (CHILD_MESSAGE_END). */
const END_MESSAGE = 2;

/**
 * Once per worker: on the SIGTERM with which jest kills a worker that did not exit after being
 * told to end, write what kept it alive. A SIGTERM before that (a worker replaced for its
 * memory) just ends it. The listener that notes the end removes itself with it, so it never
 * holds the worker's channel open.
 */
function reportOnForcedExit(rootDir) {
  if (globalThis[Symbol.for('svc.test.forcedExitReport')]) return;
  globalThis[Symbol.for('svc.test.forcedExitReport')] = true;
  let told = false;
  const noteEnd = (message) => {
    if (!Array.isArray(message) || message[0] !== END_MESSAGE) return;
    told = true;
    process.off('message', noteEnd);
  };
  process.on('message', noteEnd);
  process.on('SIGTERM', () => {
    if (told) {
      const held = [
        ...liveHandles().map(describeHandle),
        ...process
          .getActiveResourcesInfo()
          .filter((r) => r === 'Timeout')
          .map(() => 'a timer'),
        // A listener for jest's messages keeps the channel to jest open.
        ...process
          .listeners('message')
          .map((f) => `a 'message' listener: ${String(f).slice(0, 200)}`),
      ];
      mkdirSync(leaksDir(rootDir), { recursive: true });
      writeFileSync(
        join(leaksDir(rootDir), `worker-${process.pid}.txt`),
        `a jest worker did not exit at the end of the run; it ran ${lastFile} last and held:\n  ${held.join('\n  ')}\n`,
      );
    }
    process.exit(143);
  });
}

/** Node's environment, failing a test file that leaves a handle or a timer behind. */
export default class LeakCheckingEnvironment extends NodeEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    reportOnForcedExit(config.globalConfig.rootDir);
  }

  async setup() {
    await super.setup();
    this.before = new Set(liveHandles());
    this.timersBefore = liveTimers();
  }

  async teardown() {
    lastFile = this.testPath;
    const opened = () => liveHandles().filter((h) => !this.before.has(h));
    const timers = () => liveTimers() - this.timersBefore;
    const deadline = Date.now() + GRACE_MS;
    while ((opened().length > 0 || timers() > 0) && Date.now() < deadline) await sleep(50);
    const left = opened();
    const pendingTimers = timers();
    await super.teardown();
    if (left.length === 0 && pendingTimers <= 0) return;
    const lines = left.map(describeHandle);
    left.forEach(endHandle);
    // A timer cannot be ended from here (Node does not list them); it is named as a count.
    if (pendingTimers > 0)
      lines.push(`${pendingTimers} timer(s) (setTimeout/setInterval) not cleared`);
    throw new Error(
      `this test file left ${lines.length} handle(s) open (ended but for timers):\n  ${lines.join('\n  ')}`,
    );
  }
}

// Jest test environment (Node's, plus a leak check): when a test file ends, every handle it
// opened that would keep the process alive (a child process, a listening server, a socket, a
// pipe) must be closed. Jest runs files side by side in worker processes, and a worker that
// will not exit is killed by jest with a vague warning, so a leak would pass unseen there; this
// check fails the file instead, naming each handle, and ends it so the worker stays usable.
// Sockets to the harness's own components (kube-apiserver, etcd, FerretDB), which outlive every
// file, do not count: global teardown stops those components and ends them, as in a run in band,
// and leak-report.mjs still checks the jest process itself then.
import { setTimeout as sleep } from 'node:timers/promises';
import { TestEnvironment as NodeEnvironment } from 'jest-environment-node';
import { describeHandle, endHandle } from './leak-report.mjs';

/** How long a file's handles get to close after its last hook (closing sockets, exiting children). */
const GRACE_MS = 2_000;

/** The loopback ports of the components global setup started (their `SVC_TEST_*` addresses). */
function harnessPorts() {
  const ports = new Set();
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SVC_TEST_') || !value) continue;
    for (const match of value.matchAll(/:(\d{2,5})(?=[/,?]|$)/g)) ports.add(Number(match[1]));
  }
  return ports;
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

/** Node's environment, failing a test file that leaves a handle or a timer behind. */
export default class LeakCheckingEnvironment extends NodeEnvironment {
  async setup() {
    await super.setup();
    this.before = new Set(liveHandles());
    this.timersBefore = liveTimers();
  }

  async teardown() {
    const ports = harnessPorts();
    const opened = () =>
      liveHandles().filter((h) => !this.before.has(h) && !ports.has(h?.remotePort));
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

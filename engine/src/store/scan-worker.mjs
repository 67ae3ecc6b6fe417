/**
 * The scan helper thread: scores the upper part of a collection's slots against a query
 * while the main thread scores the lower part, from the same shared vector memory, and
 * copies each chunk's similarities into the shared score buffer. It blocks on the control
 * block, never on its event loop (see scan-protocol.ts), and wakes once a second to drop
 * the memories it was told to forget.
 *
 * Plain JavaScript that imports none of the engine's modules: it gets the compiled kernels
 * and the protocol's numbers in its workerData. Run from TypeScript sources, a thread that
 * imports them must register tsx first, and that held 30 MiB of resident memory where this
 * thread holds about 9 (bench/README.md).
 */
import { receiveMessageOnPort, workerData } from 'node:worker_threads';

/** @type {import('./scan-protocol.ts').HelperData} */
const { control, port, kernels, field, scanKernels, chunk } = workerData;
const fields = new Int32Array(control);
/** @type {Map<number, {memory: {buffer: SharedArrayBuffer}, scans: Record<string, Function>}>} */
const memories = new Map();
let scores = new Float32Array(0);

/** Applies the messages the main thread posted since the last task. */
function readMessages() {
  for (let got = receiveMessageOnPort(port); got; got = receiveMessageOnPort(port)) {
    const message = got.message;
    if (message.kind === 'memory') {
      const { exports } = new WebAssembly.Instance(kernels, { env: { memory: message.memory } });
      memories.set(message.id, { memory: message.memory, scans: exports });
    } else if (message.kind === 'forget') memories.delete(message.id);
    else scores = new Float32Array(message.buffer);
  }
  if (Atomics.exchange(fields, field.MEMORIES, memories.size) !== memories.size) changed();
}

/** Tells the main thread's waiters on CHANGES that READY, MEMORIES or DONE moved. */
function changed() {
  Atomics.add(fields, field.CHANGES, 1);
  Atomics.notify(fields, field.CHANGES);
}

/** Runs the posted task; throws when it names a memory or kernel the helper lacks. */
function scan() {
  const target = memories.get(fields[field.MEMORY]);
  const kernel = scanKernels[fields[field.KERNEL]];
  const count = fields[field.COUNT];
  if (!target || !kernel || count > scores.length) throw new Error('scan task out of range');
  const run = target.scans[kernel];
  const dim = fields[field.DIM];
  const query = fields[field.QUERY];
  const out = fields[field.OUT];
  let pointer = fields[field.BASE] + fields[field.FROM] * dim * 4;
  for (let done = 0; done < count; done += chunk) {
    const n = Math.min(chunk, count - done);
    run(query, pointer, n, dim, out);
    scores.set(new Float32Array(target.memory.buffer, out, n), done);
    pointer += n * dim * 4;
  }
}

let seen = Atomics.load(fields, field.SEQ);
Atomics.store(fields, field.READY, 1);
changed();
while (Atomics.load(fields, field.STOP) === 0) {
  Atomics.wait(fields, field.SEQ, seen, 1000);
  readMessages();
  const seq = Atomics.load(fields, field.SEQ);
  if (seq === seen) continue;
  seen = seq;
  let failed = 0;
  try {
    scan();
  } catch {
    failed = 1;
  }
  Atomics.store(fields, field.FAILED, failed);
  Atomics.store(fields, field.DONE, seq);
  Atomics.notify(fields, field.DONE);
  changed();
}
port.close();

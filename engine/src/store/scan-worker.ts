/**
 * The scan helper thread: scores the upper part of a collection's slots against a query
 * while the main thread scores the lower part, from the same shared vector memory, and
 * copies each chunk's similarities into the shared score buffer. It blocks on the control
 * block, never on its event loop (see scan-protocol.ts), and wakes once a second to
 * drop the memories it was told to forget.
 */
import { receiveMessageOnPort, workerData } from 'node:worker_threads';
import { createSharedMemory, instantiateKernels } from '../simd/kernels.js';
import type { Kernels, WasmMemory } from '../simd/kernels.js';
import { Field, SCAN_CHUNK, SCAN_KERNELS } from './scan-protocol.js';
import type { HelperData, HelperMessage } from './scan-protocol.js';

const { control, port } = workerData as HelperData;
const fields = new Int32Array(control);
const memories = new Map<number, { memory: WasmMemory; kernels: Kernels }>();
let scores: Float32Array = new Float32Array(0);

/** Applies the messages the main thread posted since the last task. */
function readMessages(): void {
  for (let got = receiveMessageOnPort(port); got; got = receiveMessageOnPort(port)) {
    const message = got.message as HelperMessage;
    if (message.kind === 'memory')
      memories.set(message.id, {
        memory: message.memory,
        kernels: instantiateKernels(message.memory),
      });
    else if (message.kind === 'forget') memories.delete(message.id);
    else scores = new Float32Array(message.buffer);
  }
  Atomics.store(fields, Field.MEMORIES, memories.size);
}

/** Runs the posted task; throws when it names a memory or kernel the helper lacks. */
function scan(): void {
  const target = memories.get(fields[Field.MEMORY]!);
  const kernel = SCAN_KERNELS[fields[Field.KERNEL]!];
  const count = fields[Field.COUNT]!;
  if (!target || !kernel || count > scores.length) throw new Error('scan task out of range');
  const run = target.kernels[kernel];
  const dim = fields[Field.DIM]!;
  const query = fields[Field.QUERY]!;
  const out = fields[Field.OUT]!;
  let pointer = fields[Field.BASE]! + fields[Field.FROM]! * dim * 4;
  for (let done = 0; done < count; done += SCAN_CHUNK) {
    const n = Math.min(SCAN_CHUNK, count - done);
    run(query, pointer, n, dim, out);
    scores.set(new Float32Array(target.memory.buffer, out, n), done);
    pointer += n * dim * 4;
  }
}

// Compiles the kernels before the first task, which would otherwise pay for it.
instantiateKernels(createSharedMemory(1, 1));
let seen = Atomics.load(fields, Field.SEQ);
Atomics.store(fields, Field.READY, 1);
while (Atomics.load(fields, Field.STOP) === 0) {
  Atomics.wait(fields, Field.SEQ, seen, 1000);
  readMessages();
  const seq = Atomics.load(fields, Field.SEQ);
  if (seq === seen) continue;
  seen = seq;
  let failed = 0;
  try {
    scan();
  } catch {
    failed = 1;
  }
  Atomics.store(fields, Field.FAILED, failed);
  Atomics.store(fields, Field.DONE, seq);
  Atomics.notify(fields, Field.DONE);
}
port.close();

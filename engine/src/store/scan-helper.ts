/**
 * Gives part of a long exact scan to a second thread. An exact search streams every
 * vector from memory, and one core reads at most about 10 GB/s here; the helper thread
 * scores the upper slots of the same shared memory while the calling thread scores the
 * lower ones, and the caller then reads the helper's similarities in slot order, so the
 * answer is the one a single thread gives. The helper starts on the first long scan; scans
 * before it is up, while it is still busy with an earlier part, and after it failed, run
 * on the calling thread. A caller waits for the helper's part only about as long as its
 * own took, then scores that part itself: a helper slowed down (or stuck) costs a scan
 * at most about one more part's time, never a stall.
 */
import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import type { MessagePort, Worker } from 'node:worker_threads';
import type { WasmMemory } from '../simd/kernels.js';
import { kernelModule } from '../simd/kernels.js';
import { startWorker } from '../worker-thread.js';
import { CONTROL_FIELDS, Field, SCAN_CHUNK, SCAN_KERNELS } from './scan-protocol.js';
import type { HelperData, HelperMessage } from './scan-protocol.js';

/** Bytes of vectors a scan covers before it is worth waking the helper (about 0.4 ms of reading). */
export const HELP_FROM_BYTES = 4 * 1024 * 1024;

/** The least a scan waits for the helper's part, however quick its own was. */
export const HELP_PATIENCE_MS = 2;

/** A helper still busy with one part this long after it was posted is given up on. */
const STUCK_MS = 30_000;

/** One part of a scan: `count` slots from `from`, with the kernel and pointers of its memory. */
export interface ScanTask {
  memory: WasmMemory;
  kernel: (typeof SCAN_KERNELS)[number];
  query: number;
  base: number;
  from: number;
  count: number;
  dim: number;
  /** The helper's scratch space in `memory`: one chunk of scores. */
  out: number;
}

/** The part of ES2024's `Atomics` that {@link ScanHelper.onChange} uses (the lib is ES2023). */
const atomics = Atomics as typeof Atomics & {
  waitAsync(
    array: Int32Array,
    index: number,
    value: number,
  ): { async: false } | { async: true; value: Promise<unknown> };
};

/** Plain JavaScript whatever runs the engine (see the file). */
const workerUrl = new URL('./scan-worker.mjs', import.meta.url);

/** The helper thread and the shared state to drive it. */
export class ScanHelper {
  private readonly fields = new Int32Array(new SharedArrayBuffer(CONTROL_FIELDS * 4));
  private worker: Worker | undefined;
  private port: MessagePort | undefined;
  private scores: Float32Array = new Float32Array(0);
  /** The helper's number for each memory it holds. */
  private ids = new WeakMap<WasmMemory, number>();
  private readonly forgotten = new FinalizationRegistry<number>((id) => this.forget(id));
  private nextId = 1;
  private seq = 0;
  /** When the last task was posted (ms since the epoch). */
  private postedAt = 0;
  private broken = false;
  /** Tasks the helper finished (tests and benchmarks read it). */
  finished = 0;

  /** Whether the helper waits for tasks (it starts on the first call to {@link offload}). */
  get ready(): boolean {
    return !this.broken && Atomics.load(this.fields, Field.READY) === 1;
  }

  /** Memories the helper holds. */
  get memoriesHeld(): number {
    return Atomics.load(this.fields, Field.MEMORIES);
  }

  /**
   * Calls `changed` each time the helper thread says it became ready, holds another number of
   * memories or finished a part, until the returned function is called: tests wait on the
   * helper's state through it instead of polling.
   */
  onChange(changed: () => void): () => void {
    const fields = this.fields;
    let stopped = false;
    void (async () => {
      let seen = Atomics.load(fields, Field.CHANGES);
      while (!stopped) {
        const wait = atomics.waitAsync(fields, Field.CHANGES, seen);
        if (wait.async) await wait.value;
        const now = Atomics.load(fields, Field.CHANGES);
        if (stopped || now === seen) continue;
        seen = now;
        changed();
      }
    })();
    return () => {
      stopped = true;
      // Wakes the wait above, so it ends.
      Atomics.notify(fields, Field.CHANGES);
    };
  }

  /**
   * Posts a task to the helper: true when it took it, and {@link collect} must follow
   * before the next task; false (the caller scans those slots) while the helper starts or
   * is busy, after it failed, or on one core.
   */
  offload(task: ScanTask): boolean {
    if (this.broken || !this.worker) {
      this.start();
      return false;
    }
    if (!this.ready) return false;
    if (Atomics.load(this.fields, Field.DONE) !== this.seq) {
      // Still on a part its caller stopped waiting for.
      if (Date.now() - this.postedAt > STUCK_MS) this.fail('stuck on one part for 30 s');
      return false;
    }
    let id = this.ids.get(task.memory);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(task.memory, id);
      this.forgotten.register(task.memory, id, task.memory);
      this.post({ kind: 'memory', id, memory: task.memory });
    }
    if (this.scores.length < task.count) {
      const buffer = new SharedArrayBuffer(Math.max(task.count, 2 * this.scores.length) * 4);
      this.scores = new Float32Array(buffer);
      this.post({ kind: 'scores', buffer });
    }
    const f = this.fields;
    f[Field.MEMORY] = id;
    f[Field.KERNEL] = SCAN_KERNELS.indexOf(task.kernel);
    f[Field.QUERY] = task.query;
    f[Field.BASE] = task.base;
    f[Field.FROM] = task.from;
    f[Field.COUNT] = task.count;
    f[Field.DIM] = task.dim;
    f[Field.OUT] = task.out;
    this.seq = (this.seq + 1) | 0;
    this.postedAt = Date.now();
    Atomics.store(f, Field.SEQ, this.seq);
    Atomics.notify(f, Field.SEQ);
    return true;
  }

  /**
   * Waits up to `patienceMs` for the posted task; returns its similarities (slot
   * `from + i` at `i`, valid until the next task), or undefined when the helper failed it
   * or is not done: the caller then scores those slots itself. A helper that failed takes
   * no more tasks; one that is late takes the next after it finishes this one.
   */
  collect(count: number, patienceMs: number): Float32Array | undefined {
    const f = this.fields;
    const deadline = performance.now() + patienceMs;
    while (Atomics.load(f, Field.DONE) !== this.seq) {
      const left = deadline - performance.now();
      if (left <= 0) return undefined;
      Atomics.wait(f, Field.DONE, Atomics.load(f, Field.DONE), left);
    }
    if (Atomics.load(f, Field.FAILED) === 1) return this.fail('failed a part');
    this.finished++;
    return this.scores.subarray(0, count);
  }

  /** Tells the helper to drop a memory it holds (a closed collection's). */
  release(memory: WasmMemory): void {
    const id = this.ids.get(memory);
    if (id === undefined) return;
    this.ids.delete(memory);
    this.forgotten.unregister(memory);
    this.forget(id);
  }

  /** Stops the helper thread; later scans start a new one. */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    Atomics.store(this.fields, Field.READY, 0);
    Atomics.store(this.fields, Field.STOP, 1);
    Atomics.notify(this.fields, Field.SEQ);
    await worker.terminate();
  }

  /** Posts a forget and wakes the helper to read it (it sees no new task). */
  private forget(id: number): void {
    this.post({ kind: 'forget', id });
    Atomics.notify(this.fields, Field.SEQ);
  }

  /** Posts a message to the helper's port (typed: the helper reads only these). */
  private post(message: HelperMessage): void {
    this.port?.postMessage(message);
  }

  /** Marks the helper broken (scans go on without it), says why, and stops it. */
  private fail(why: string): undefined {
    process.emitWarning(`the scan helper thread ${why}: exact scans use one thread from now on`);
    this.broken = true;
    void this.stop();
    return undefined;
  }

  /** Starts the thread once, on more than one core; not again after it broke. */
  private start(): void {
    if (this.worker || this.broken || availableParallelism() < 2) return;
    const { port1, port2 } = new MessageChannel();
    const data: HelperData = {
      control: this.fields.buffer as SharedArrayBuffer,
      port: port2,
      kernels: kernelModule(),
      field: Field,
      scanKernels: SCAN_KERNELS,
      chunk: SCAN_CHUNK,
    };
    Atomics.store(this.fields, Field.STOP, 0);
    Atomics.store(this.fields, Field.READY, 0);
    // Nothing posted and nothing owed: a thread stopped mid-part left DONE behind SEQ.
    Atomics.store(this.fields, Field.SEQ, this.seq);
    Atomics.store(this.fields, Field.DONE, this.seq);
    const worker = startWorker(workerUrl, { workerData: data, transferList: [port2] });
    worker.unref();
    port1.unref();
    // A new thread holds no memory or score buffer yet.
    this.ids = new WeakMap();
    this.scores = new Float32Array(0);
    const lost = () => {
      if (this.worker !== worker) return;
      this.broken = true;
      this.worker = undefined;
    };
    worker.once('error', lost);
    worker.once('exit', lost);
    this.worker = worker;
    this.port = port1;
  }
}

let shared: ScanHelper | undefined;

/** The process's scan helper. */
export function scanHelper(): ScanHelper {
  shared ??= new ScanHelper();
  return shared;
}

/**
 * What the main thread and the scan helper thread share: the fields of the control block
 * they synchronise on, and the messages that hand the helper memories and score buffers.
 * A scan is synchronous, so the main thread cannot wait for a message: it writes a task's
 * fields, bumps {@link Field.SEQ} and blocks on {@link Field.DONE}; the helper, blocked on
 * `SEQ`, reads its port's messages (sent before the task) without an event loop.
 */
import type { MessagePort } from 'node:worker_threads';
import type { WasmMemory } from '../simd/kernels.js';

/** Slots scored per kernel call in a scan, on either thread. */
export const SCAN_CHUNK = 4096;

/** Int32 fields of the control block. */
export const Field = {
  /** The last task posted (the main thread counts up). */
  SEQ: 0,
  /** The last task finished (the helper writes the task's `SEQ`). */
  DONE: 1,
  /** 1 when the finished task failed: its scores are not to be read. */
  FAILED: 2,
  /** The task: which memory, which kernel of {@link SCAN_KERNELS}, and its arguments. */
  MEMORY: 3,
  KERNEL: 4,
  QUERY: 5,
  BASE: 6,
  FROM: 7,
  COUNT: 8,
  DIM: 9,
  /** The helper's scratch space in that memory, one chunk of scores. */
  OUT: 10,
  /** 1 once the helper waits for tasks. */
  READY: 11,
  /** Set to 1 to make the helper return. */
  STOP: 12,
  /** How many memories the helper holds (it drops one when told to forget it). */
  MEMORIES: 13,
  /**
   * Counts up, with a notify, each time the helper becomes ready, holds another number of
   * memories or finishes a task: what `ScanHelper.onChange` waits on.
   */
  CHANGES: 14,
} as const;

/** Int32 fields in the control block. */
export const CONTROL_FIELDS = 16;

/** The scan kernels, by the number a task names them with. */
export const SCAN_KERNELS = ['scan_dot', 'scan_l2', 'scan_l1'] as const;

/** What the main thread posts to the helper's port. */
export type HelperMessage =
  | { kind: 'memory'; id: number; memory: WasmMemory }
  | { kind: 'forget'; id: number }
  | { kind: 'scores'; buffer: SharedArrayBuffer };

/** What the helper is started with: it imports nothing of the engine (scan-worker.mjs). */
export interface HelperData {
  control: SharedArrayBuffer;
  port: MessagePort;
  /** The compiled kernels (a WebAssembly.Module), instantiated on each memory. */
  kernels: object;
  field: typeof Field;
  scanKernels: typeof SCAN_KERNELS;
  chunk: number;
}

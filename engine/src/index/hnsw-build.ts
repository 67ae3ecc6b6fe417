/**
 * Runs HNSW builds in a worker thread. One worker per build keeps failure handling
 * simple: a crashed build rejects its promise and leaves the previous graph serving.
 */
import type { Distance } from '../distance.js';
import type { WasmMemory } from '../simd/kernels.js';
import type { ScalarBounds } from '../quantization/scalar.js';
import { siblingModule, startWorker } from '../worker-thread.js';
import type { HnswParams, HnswState } from './hnsw.js';

/**
 * The quantized rows a build also writes: into `memory` (grown by the main thread to hold
 * every slot built), with `bounds`, or with bounds the worker finds over the slots built.
 */
export interface QuantizeRequest {
  memory: WasmMemory;
  quantile?: number;
  bounds?: ScalarBounds;
}

/** What the worker needs: the shared memory, the graph to extend (or none) and the slots to add. */
export interface HnswBuildRequest {
  memory: WasmMemory;
  dim: number;
  distance: Distance;
  params: HnswParams;
  previous: HnswState | undefined;
  slots: Int32Array;
  quantize?: QuantizeRequest;
}

/** What a build returns: the graph and, when it quantized, the bounds its rows use. */
export interface HnswBuildResult {
  state: HnswState;
  bounds?: ScalarBounds;
}

const workerUrl = siblingModule('hnsw-worker', import.meta.url);

/** Builds in a worker; resolves with the new graph's state (and quantization bounds). */
export function buildInWorker(request: HnswBuildRequest): Promise<HnswBuildResult> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(workerUrl);
    worker.once('message', (result: HnswBuildResult) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`HNSW build worker exited with code ${code}`));
    });
    worker.postMessage(request);
  });
}

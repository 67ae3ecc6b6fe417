/**
 * Starts the engine's worker threads, from compiled JavaScript or from TypeScript sources.
 * Run from sources, the worker registers tsx itself first: a loader registered with
 * `--import` in the parent does not reach worker threads on Node 20.
 */
import { Worker } from 'node:worker_threads';
import type { WorkerOptions } from 'node:worker_threads';

/**
 * The URL of the module `name` (without extension) beside the module at `from`
 * (`import.meta.url`): `.ts` when that one runs from sources, else `.js`.
 */
export function siblingModule(name: string, from: string): URL {
  return new URL(`./${name}${from.endsWith('.ts') ? '.ts' : '.js'}`, from);
}

/** A worker thread running the module at `url` (through tsx when it is `.ts`). */
export function startWorker(url: URL, options: WorkerOptions = {}): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/**
 * Client of `qdrant_edge_driver.py`: spawns it with the project's venv Python
 * (`.tools/venv`, made by `node hack/python/ensure-venv.mjs`) and sends one JSON request
 * at a time over stdin, reading one JSON answer per line.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');

/** The venv's Python interpreter. */
export const VENV_PYTHON = join(root, '.tools', 'venv', 'bin', 'python');

/** An answer of the driver: the result, or qdrant-edge's error message. */
export type EdgeAnswer = { ok: unknown } | { error: string };

/** A running driver. */
export class EdgeDriver {
  private readonly waiting: ((answer: EdgeAnswer) => void)[] = [];
  private stderr = '';

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      this.waiting.shift()?.(JSON.parse(line) as EdgeAnswer);
    });
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    child.once('exit', (code) => {
      for (const waiter of this.waiting.splice(0)) {
        waiter({ error: `driver exited with ${code}: ${this.stderr}` });
      }
    });
  }

  /** Starts the driver; fails with a hint when the venv is missing. */
  static async start(): Promise<EdgeDriver> {
    if (!existsSync(VENV_PYTHON)) {
      throw new Error(
        'no Python venv at .tools/venv: run `node hack/python/ensure-venv.mjs` first',
      );
    }
    const child = spawn(VENV_PYTHON, [join(here, 'qdrant_edge_driver.py')], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const driver = new EdgeDriver(child);
    const pong = await driver.send({ cmd: 'ping' });
    if (!('ok' in pong)) throw new Error(`qdrant-edge driver did not start: ${pong.error}`);
    return driver;
  }

  /** The driver's process id (the benchmark reads its memory). */
  get pid(): number {
    return this.child.pid!;
  }

  /** Sends one request and waits for its answer. */
  send(request: Record<string, unknown>): Promise<EdgeAnswer> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.child.stdin.write(JSON.stringify(request) + '\n');
    });
  }

  /** Sends a request that must succeed. */
  async ok(request: Record<string, unknown>): Promise<unknown> {
    const answer = await this.send(request);
    if ('error' in answer)
      throw new Error(`qdrant-edge ${String(request.cmd)} failed: ${answer.error}`);
    return answer.ok;
  }

  /** Closes stdin and waits for the driver to exit. */
  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    await exited;
  }
}

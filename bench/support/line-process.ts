/**
 * A child process that answers JSON lines, one answer per request in order, as the
 * qdrant-edge driver and bench/support/engine-core.ts do.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

type Answer = { ok: unknown } | { error: string };

/** A running JSON-lines child. */
export class LineProcess {
  private readonly waiting: ((answer: Answer) => void)[] = [];
  private stderr = '';

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      this.waiting.shift()?.(JSON.parse(line) as Answer);
    });
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    child.once('exit', (code) => {
      for (const waiter of this.waiting.splice(0)) {
        waiter({ error: `exited with ${code}: ${this.stderr}` });
      }
    });
  }

  /** Starts `command args`. */
  static start(command: string, args: string[]): LineProcess {
    return new LineProcess(spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] }));
  }

  /** The child's process id. */
  get pid(): number {
    return this.child.pid!;
  }

  /** Sends a request that must succeed; resolves with its result. */
  async ok(request: Record<string, unknown>): Promise<unknown> {
    const answer = await new Promise<Answer>((resolve) => {
      this.waiting.push(resolve);
      this.child.stdin.write(JSON.stringify(request) + '\n');
    });
    if ('error' in answer) throw new Error(`${String(request.cmd)} failed: ${answer.error}`);
    return answer.ok;
  }

  /** Closes stdin and waits for the child to exit. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    await exited;
  }
}

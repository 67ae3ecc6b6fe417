/**
 * Runs the real `svc` binary (cli/bin/svc.mjs) as a child process, the way a
 * user's shell does: arguments, stdin, environment and working directory in;
 * exit code, stdout and stderr out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The binary the root package.json names as `svc`. */
export const SVC_BIN = fileURLToPath(new URL('../../cli/bin/svc.mjs', import.meta.url));

/** How one run ended. */
export interface SvcResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of a run. */
export interface SvcOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Written to stdin, which is then closed (stdin is closed empty without it). */
  input?: string;
}

/** Starts `svc args...`; the caller reads and ends it (a follow runs until stopped). */
export function startSvc(args: readonly string[], options: SvcOptions): ChildProcess {
  return startCommand(process.execPath, [SVC_BIN, ...args], options);
}

/** Runs `svc args...` to its end. */
export function runSvc(args: readonly string[], options: SvcOptions): Promise<SvcResult> {
  return runCommand(process.execPath, [SVC_BIN, ...args], options);
}

/**
 * Runs `svc args...` on a terminal: under util-linux `script`, which gives it
 * a pseudo-terminal for stdin, stdout and stderr (both land in stdout).
 */
export function runSvcOnTerminal(args: readonly string[], options: SvcOptions): Promise<SvcResult> {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const command = [process.execPath, SVC_BIN, ...args].map(quote).join(' ');
  return runCommand('script', ['-qec', command, '/dev/null'], options);
}

function startCommand(file: string, args: readonly string[], options: SvcOptions): ChildProcess {
  const child = spawn(file, args, {
    env: options.env,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin?.end(options.input ?? '');
  return child;
}

/** Runs any command (a shell pipeline around `svc`, say) to its end. */
export function runCommand(
  file: string,
  args: readonly string[],
  options: SvcOptions,
): Promise<SvcResult> {
  const child = startCommand(file, args, options);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

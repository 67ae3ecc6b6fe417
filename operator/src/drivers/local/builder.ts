/**
 * Builds a deployment on this machine into its own directory: fetches the
 * code archive from the API server (the same capability-token route a
 * cluster build Job uses), unpacks it safely and within the archive limits
 * its deployment records, and installs the dependencies
 * of `requirements.txt` (pip, into `.svc/deps`) or `package.json` (npm, into
 * `node_modules`). Returns the failure in the tool's own words.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  FALLBACK_ARCHIVE_LIMITS,
  type AgentDeployment,
  type ArchiveLimits,
  type Runtime,
} from '../../../../crds/src/index.js';
import { extractWithin, type EntryHandler } from '../../../../common/archive-limits.js';
import { internalToken } from '../../../../common/internal-token.js';
import { runnerCommand, runtimeAvailable, type RunnerPaths } from './runner-command.js';

/** Where a build's output goes while it runs. */
export type BuildOutput = (line: string) => void;

/** Strips `./` and refuses paths that leave the directory. */
function safePath(root: string, name: string): string | null {
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..')) return null;
  return join(root, ...parts);
}

/** No bound: for what the platform's own builder packed (a build artifact), not for user archives. */
const UNBOUNDED: ArchiveLimits = {
  maxUnpackedBytes: Number.POSITIVE_INFINITY,
  maxEntries: Number.POSITIVE_INFINITY,
  maxFileBytes: Number.POSITIVE_INFINITY,
};

/**
 * Unpacks a tar.gz stream into `dir` (regular files and directories only),
 * within `limits` (null: unbounded, for a build artifact): past one, the
 * unpack stops where it is, what it wrote is removed, and it rejects with the
 * limit's ArchiveLimitError. Any other failure removes what was written too.
 */
export async function unpack(
  source: Readable,
  dir: string,
  limits: ArchiveLimits | null = null,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  // The entry being written: a failure waits for it before removing the directory.
  let writing: Promise<unknown> = Promise.resolve();
  const onEntry: EntryHandler = (header, stream, next) => {
    const target = safePath(dir, header.name);
    if (!target || (header.type !== 'file' && header.type !== 'directory')) {
      stream.on('end', () => next());
      stream.resume();
      return;
    }
    const work =
      header.type === 'directory'
        ? mkdir(target, { recursive: true }).then(
            () =>
              new Promise<void>((resolve) => {
                stream.on('end', resolve);
                stream.resume();
              }),
          )
        : mkdir(dirname(target), { recursive: true }).then(() =>
            pipeline(stream, createWriteStream(target, { mode: (header.mode ?? 0o644) & 0o755 })),
          );
    writing = work.then(
      () => next(),
      (err: unknown) => next(err as Error),
    );
  };
  try {
    await extractWithin(source, limits ?? UNBOUNDED, onEntry);
  } catch (err) {
    await writing.catch(() => undefined);
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    throw err;
  }
}

/**
 * Runs a build tool (pip, npm, the runner's compile check) in the app
 * directory, streaming its output lines; rejects with `label` and its last
 * lines when it fails. `env` is added to the tool's environment. The local
 * driver passes one that runs the tool in the agent's sandbox.
 */
export type ToolRunner = (
  label: string,
  command: string,
  args: string[],
  output: BuildOutput,
  signal: AbortSignal,
  env?: Record<string, string>,
) => Promise<void>;

/** Keeps the last lines a tool printed, for its failure message. */
export function toolOutput(output: BuildOutput): {
  line: (line: string) => void;
  failure: (label: string, code: number | string | null) => Error;
} {
  const tail: string[] = [];
  return {
    line: (line) => {
      output(line);
      tail.push(line);
      if (tail.length > 20) tail.shift();
    },
    failure: (label, code) =>
      new Error(`${label} failed (exit ${code}): ${tail.slice(-5).join(' | ')}`),
  };
}

/** A {@link ToolRunner} that runs the tool as a plain child process in `cwd`. */
export function directToolRunner(cwd: string): ToolRunner {
  return (label, command, args, output, signal, env = {}) =>
    new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
        signal,
        env: { ...process.env, ...env },
      });
      const lines = toolOutput(output);
      const onData = (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.line(line);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(lines.failure(label, code))));
    });
}

/**
 * How long a build keeps trying to reach the API server for its archive by default (the
 * operator's `SVC_ARCHIVE_FETCH_RETRY_SECONDS`): the API server is restarted after a crash (the
 * single-machine supervisor, a Deployment in a cluster), and a build that began before must not
 * fail for it.
 */
export const ARCHIVE_FETCH_RETRY_MS = 60_000;

/**
 * Whether `err` (from fetch, or from the body stream) says the server could not be reached.
 * Read by name and code, not `instanceof`: fetch's errors may come from another realm.
 */
function unreachable(err: unknown): boolean {
  const codes = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'];
  for (let e = err as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (typeof e !== 'object') break;
    if (codes.includes(e.code ?? '')) return true;
  }
  const { name, message } = (err ?? {}) as { name?: string; message?: string };
  return name === 'TypeError' && (message === 'fetch failed' || message === 'terminated');
}

/**
 * Downloads a tar.gz from `url` and unpacks it into `dir` (replacing what was
 * there), within `limits` when given. While the server cannot be reached (refused, reset, a
 * 502/503/504 from a proxy in front of it), it tries again with a growing delay for up to
 * `retryForMs`; any other failure (a 4xx, an archive over its limits) ends it at once.
 */
export async function fetchAndUnpack(
  url: string,
  dir: string,
  signal?: AbortSignal,
  limits: ArchiveLimits | null = null,
  retryForMs = ARCHIVE_FETCH_RETRY_MS,
): Promise<void> {
  const deadline = Date.now() + retryForMs;
  for (let attempt = 0; ; attempt += 1) {
    await emptyDirectory(dir);
    let retryable = false;
    try {
      const res = await fetch(url, { signal });
      if (!res.ok || !res.body) {
        retryable = [502, 503, 504].includes(res.status);
        throw new Error(`Fetching ${new URL(url).pathname} failed (${res.status}).`);
      }
      await unpack(Readable.fromWeb(res.body as WebReadableStream), dir, limits);
      return;
    } catch (err) {
      if (signal?.aborted || !(retryable || unreachable(err)) || Date.now() >= deadline) throw err;
    }
    await sleep(
      Math.min(250 * 2 ** attempt, 2_000, Math.max(deadline - Date.now(), 0)),
      undefined,
      {
        signal,
      },
    );
  }
}

/**
 * Removes what `dir` holds, keeping the directory itself: in a pod it is a volume's mount
 * point (an emptyDir), which a non-root process cannot remove and root only gets EBUSY for.
 */
async function emptyDirectory(dir: string): Promise<void> {
  const entries = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (entries === null) return;
  for (const entry of entries) await rm(join(dir, entry), { recursive: true, force: true });
}

/**
 * Installs a project's dependencies into its own directory: `requirements.txt`
 * with `python` (pip, into `.svc/deps`), or `package.json` dependencies with npm.
 * Bun projects too get npm, not `bun install`: Bun resolves from the same
 * `node_modules`, and the cluster's builder image has Node and npm but no Bun
 * (a `bun.lock` is therefore not honoured; `package.json` ranges are).
 */
export async function installDependencies(
  runtime: Runtime,
  appDir: string,
  opts: {
    python: string;
    output: BuildOutput;
    signal: AbortSignal;
    /** Runs the tools (in a sandbox); plain child processes in `appDir` otherwise. */
    run?: ToolRunner;
    /** `appDir` as the tools see it (inside a sandbox). */
    toolDir?: string;
    /** More environment for pip and npm. */
    env?: Record<string, string>;
  },
): Promise<void> {
  const runTool = opts.run ?? directToolRunner(appDir);
  const toolDir = opts.toolDir ?? appDir;
  if (runtime.startsWith('python') && existsSync(join(appDir, 'requirements.txt'))) {
    opts.output('installing requirements.txt');
    await runTool(
      'pip install',
      opts.python,
      [
        '-m',
        'pip',
        'install',
        '--no-input',
        '--disable-pip-version-check',
        '--no-cache-dir',
        '--target',
        join(toolDir, '.svc', 'deps'),
        '-r',
        'requirements.txt',
      ],
      opts.output,
      opts.signal,
      opts.env,
    );
  }
  if (!runtime.startsWith('python') && existsSync(join(appDir, 'package.json'))) {
    const manifest = JSON.parse(await readFile(join(appDir, 'package.json'), 'utf8')) as {
      dependencies?: object;
    };
    if (manifest.dependencies && Object.keys(manifest.dependencies).length > 0) {
      opts.output('installing package.json dependencies');
      await runTool(
        'npm install',
        'npm',
        ['install', '--omit=dev', '--no-audit', '--no-fund', '--no-package-lock'],
        opts.output,
        opts.signal,
        opts.env,
      );
    }
  }
}

/**
 * Compiles the entry point without running it (the runner's `check` mode):
 * a syntax error fails the build with the interpreter's message, file and
 * line (`SyntaxError: invalid syntax (main.py, line 3)`), for a job before
 * its first run as for a service before it is started.
 */
export async function checkEntrypoint(
  runtime: Runtime,
  entrypoint: string,
  opts: {
    runners: RunnerPaths;
    output: BuildOutput;
    signal: AbortSignal;
    /** Runs the tool (in a sandbox); a plain child process in `appDir` otherwise. */
    run: ToolRunner;
    /** The app directory as the tool sees it. */
    toolDir: string;
  },
): Promise<void> {
  if (runtime === 'dockerfile') return;
  const command = runnerCommand(opts.runners, runtime, 'check', opts.toolDir, entrypoint);
  let reason = '';
  try {
    await opts.run(
      'compile check',
      command.command,
      command.args,
      (line) => {
        reason = line;
        opts.output(line);
      },
      opts.signal,
      command.env,
    );
  } catch (err) {
    // The runner's last line is the reason, in the interpreter's words.
    if (opts.signal.aborted || !reason) throw err;
    throw new Error(reason, { cause: err });
  }
  opts.output(`${entrypoint} compiles`);
}

/**
 * A build failure's message with the agent's code named as the user knows it:
 * paths under the code's directories (`/app` in the sandbox, the build
 * directory on the host) become relative to the code, and the code
 * directories themselves `.`; other host directories (the platform's) are
 * replaced by `<platform>`.
 */
export function relativeToCode(
  message: string,
  codeDirs: readonly string[],
  hostDirs: readonly string[] = [],
): string {
  let out = message;
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // Longest first, so a code directory inside a host directory is replaced as code.
  const dirs = [
    ...codeDirs.map((dir) => ({ dir, code: true })),
    ...hostDirs.map((dir) => ({ dir, code: false })),
  ]
    .filter(({ dir }) => dir.length > 1)
    .sort((a, b) => b.dir.length - a.dir.length);
  for (const { dir, code } of dirs) {
    const base = escape(dir.replace(/\/+$/, ''));
    // `dir/x` → `x` (or `<platform>/x`); `dir` alone → `.`; `/apple` is not `/app`.
    const pattern = new RegExp(`(^|[^\\w./-]|file://)${base}(?:(/)|(?![\\w.-]))`, 'g');
    out = out.replace(pattern, (_m, lead: string, slash: string | undefined) => {
      const kept = lead === 'file://' ? '' : lead;
      if (code) return slash ? kept : `${kept}.`;
      return `${kept}<platform>${slash ?? ''}`;
    });
  }
  return out;
}

/** Fetches, unpacks and installs a deployment into `appDir` (the local driver's build). */
export async function buildDeployment(
  deployment: AgentDeployment,
  appDir: string,
  opts: {
    apiUrl: string;
    secret: string;
    runners: RunnerPaths;
    output: BuildOutput;
    signal: AbortSignal;
    /** Where the tools run, and how they see `appDir` (the sandbox); called once unpacked. */
    tools?: (appDir: string) => Promise<{ run: ToolRunner; toolDir: string }>;
    /** More environment for the dependency installers (the agent's secrets, when opted in). */
    env?: Record<string, string>;
    /** How long the archive's fetch tries again while the API server is unreachable. */
    fetchRetryMs?: number;
  },
): Promise<void> {
  const runtime = deployment.spec.config.runtime;
  const available = runtimeAvailable(opts.runners, runtime);
  if (!available.ok) throw new Error(available.reason);
  const id = deployment.metadata.name ?? '';
  const url = `${opts.apiUrl}/internal/deployments/${id}/archive?token=${internalToken(opts.secret, 'archive:read', id)}`;
  // Checked by the API server at upload; held to the same limits again here, defensively.
  await fetchAndUnpack(
    url,
    appDir,
    opts.signal,
    deployment.spec.archiveLimits ?? FALLBACK_ARCHIVE_LIMITS,
    opts.fetchRetryMs,
  );
  opts.output(`unpacked the code of version ${deployment.spec.version}`);
  const tools = opts.tools ? await opts.tools(appDir) : undefined;
  await installDependencies(runtime, appDir, {
    python: opts.runners.python,
    output: opts.output,
    signal: opts.signal,
    env: opts.env,
    ...tools,
  });
  const entrypoint = deployment.spec.config.entrypoint;
  if (entrypoint) {
    await checkEntrypoint(runtime, entrypoint, {
      runners: opts.runners,
      output: opts.output,
      signal: opts.signal,
      run: tools?.run ?? directToolRunner(appDir),
      toolDir: tools?.toolDir ?? appDir,
    });
  }
}

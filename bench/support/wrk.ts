/**
 * Load from wrk (Debian's `wrk` package), a native HTTP load generator: on a
 * small machine the load generator shares the cores with what it measures,
 * and wrk spends a small fraction of the CPU per request a Node client does
 * (about 0.26 ms per search), which would otherwise be taken from the
 * engine and the gateway being compared.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'wrk-cycle.lua');

/** Requests sharing a method and URL, each with one of `bodies` in turn. */
export interface Load {
  method: string;
  url: string;
  /** JSON bodies, none containing a newline. */
  bodies: string[];
  /** The API key, sent as a Bearer authorization header. */
  key?: string;
}

/** What one wrk run did. */
export interface WrkResult {
  requests: number;
  seconds: number;
  /** Latency percentiles as wrk measured them, in milliseconds. */
  p50Ms: number;
  p99Ms: number;
}

/** Whether `wrk` can be run here. */
function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

/**
 * Whether `wrk` can be run here, installing Debian's package first when it is
 * missing and this process may (root, with apt-get): the bench installs what
 * it needs, as the project's scripts do.
 */
export function ensureWrk(): boolean {
  if (wrkAvailable()) return true;
  const root = process.getuid?.() === 0;
  if (!root || spawnSync('apt-get', ['--version']).error !== undefined) return false;
  console.error("bench: wrk not found; installing Debian's wrk package with apt-get");
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '-q', 'wrk'], { stdio: ['ignore', 'ignore', 'inherit'] })
      .status === 0;
  // A fresh machine may have no package lists yet.
  if (!install()) {
    spawnSync('apt-get', ['update', '-q'], { stdio: ['ignore', 'ignore', 'inherit'] });
    install();
  }
  return wrkAvailable();
}

/**
 * Sends `load` for `seconds` over `connections` keep-alive connections from
 * one wrk thread (through `taskset -c <cpu>` when `cpu` is given) and
 * returns how many answers came back. Rejects when any answer was not 2xx or
 * any connection failed, so a broken path is never reported as fast.
 */
export async function runWrk(
  load: Load,
  { seconds, connections, cpu }: { seconds: number; connections: number; cpu?: number },
): Promise<WrkResult> {
  if (load.bodies.some((body) => body.includes('\n'))) throw new Error('a body holds a newline');
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-wrk-'));
  try {
    const file = join(dir, 'bodies');
    await writeFile(file, load.bodies.join('\n') + '\n');
    const url = new URL(load.url);
    const args = [
      '-t1',
      `-c${connections}`,
      `-d${seconds}s`,
      '--timeout',
      '60s',
      '-s',
      SCRIPT,
      url.origin,
      '--',
      load.method,
      `${url.pathname}${url.search}`,
      file,
    ];
    const [command, argv] =
      cpu === undefined ? ['wrk', args] : ['taskset', ['-c', String(cpu), 'wrk', ...args]];
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(command, argv, {
        env: { ...process.env, WRK_AUTHORIZATION: load.key ? `Bearer ${load.key}` : '' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve(text) : reject(new Error(`wrk exited with ${code}: ${text}`)),
      );
    });
    const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
    if (!line) throw new Error(`wrk printed no counts: ${out}`);
    const counts = JSON.parse(line) as {
      requests: number;
      duration_us: number;
      status_errors: number;
      socket_errors: number;
      p50_us: number;
      p99_us: number;
    };
    if (counts.status_errors > 0 || counts.socket_errors > 0) {
      throw new Error(
        `${load.method} ${load.url}: ${counts.status_errors} answers not 2xx and ${counts.socket_errors} socket errors in ${counts.requests} requests`,
      );
    }
    return {
      requests: counts.requests,
      seconds: counts.duration_us / 1e6,
      p50Ms: counts.p50_us / 1000,
      p99Ms: counts.p99_us / 1000,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

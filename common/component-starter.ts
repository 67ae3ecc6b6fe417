/**
 * One way to start a component and wait until it serves, for `hack/`, `bench/`
 * and `test/` alike: start it in a {@link ProcessGroup}, watch for its ready
 * line (a regex, or a parser of what the line announces), an open port, or any
 * other probe, and give up after a timeout. A component that exits first or is
 * not ready in time is stopped, and the error carries the tail of its log
 * (stdout and stderr), which is where a component says why it refused to start.
 */
import { connect } from 'node:net';
import type { ManagedProcess, ProcessGroup, StartOptions } from './processes.js';

/**
 * What says a component is ready; every condition given must hold. `line` is a
 * stdout line: a regex it matches, or a function that returns what the line
 * announces (a URL, an identity) and `undefined` for any other line.
 */
export interface ReadyWhen<T> {
  line?: RegExp | ((line: string) => T | undefined);
  /** A loopback TCP port (or `{host, port}`) that accepts connections. */
  port?: number | { host: string; port: number };
  /** Any other check, such as an HTTP health route. */
  probe?: () => Promise<boolean>;
}

/** Options of {@link launch} and {@link startReady}. */
export interface ComponentOptions<T> extends StartOptions {
  readyWhen: ReadyWhen<T>;
}

/**
 * A started component: its process, whether it is ready yet, and what its
 * ready line announced (the line itself for a regex, or the match's value).
 */
export interface Launched<T> {
  proc: ManagedProcess;
  ready(): Promise<boolean>;
  announced(): T | undefined;
}

/** A component that is ready, and what its ready line announced. */
export interface Started<T> {
  proc: ManagedProcess;
  announced: T;
}

/**
 * Starts a component in `group` without waiting: the returned `ready()` says
 * whether it serves yet (the shape the platform's supervisor restarts from).
 */
export function launch<T = string>(group: ProcessGroup, options: ComponentOptions<T>): Launched<T> {
  const { readyWhen, onStdoutLine, ...start } = options;
  const { line } = readyWhen;
  let announced: T | undefined;
  const proc = group.start({
    ...start,
    onStdoutLine: (text) => {
      onStdoutLine?.(text);
      if (!line || announced !== undefined) return;
      announced =
        typeof line === 'function' ? line(text) : line.test(text) ? (text as T) : undefined;
    },
  });
  const ready = async () => {
    if (line && announced === undefined) return false;
    if (readyWhen.port !== undefined) {
      const { host, port } =
        typeof readyWhen.port === 'number'
          ? { host: '127.0.0.1', port: readyWhen.port }
          : readyWhen.port;
      if (!(await tcpOpen(host, port))) return false;
    }
    return readyWhen.probe ? readyWhen.probe() : true;
  };
  return { proc, ready, announced: () => announced };
}

/**
 * Starts a component in `group` and resolves once it is ready. If it exits
 * first, or is not ready within `timeoutMs`, it is stopped and the promise
 * rejects naming it, with the tail of its log.
 */
export async function startReady<T = string>(
  group: ProcessGroup,
  options: ComponentOptions<T> & { timeoutMs?: number },
): Promise<Started<T>> {
  const { timeoutMs = 60_000, ...rest } = options;
  const started = launch(group, rest);
  await waitUntilReady(group, started, timeoutMs);
  return { proc: started.proc, announced: started.announced() as T };
}

/**
 * Waits until a component {@link launch}ed in `group` is ready: by its own
 * `ready()`, or by a check known only once it runs (a test's health URL). If
 * it exits first, or is not ready within `timeoutMs`, it is stopped and the
 * promise rejects naming it, with the tail of its log.
 */
export async function waitUntilReady(
  group: ProcessGroup,
  launched: Pick<Launched<unknown>, 'proc' | 'ready'>,
  timeoutMs = 60_000,
): Promise<void> {
  try {
    await group.waitReady(launched.proc, launched.ready, timeoutMs);
  } catch (err) {
    await group.stop(launched.proc, 2000);
    throw err;
  }
}

/**
 * Reads the `url` (or another `field`) of a JSON ready line
 * `{"ready":"<name>","url":...}`; any component's when `name` is not given.
 */
export function readyLine(name?: string, field = 'url'): (line: string) => string | undefined {
  const prefix = name === undefined ? '{"ready":' : `{"ready":"${name}"`;
  return (line) => {
    if (!line.startsWith(prefix)) return undefined;
    try {
      const value = (JSON.parse(line) as Record<string, unknown>)[field];
      return typeof value === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  };
}

/** True when a TCP connection to host:port succeeds within `timeoutMs`. */
function tcpOpen(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

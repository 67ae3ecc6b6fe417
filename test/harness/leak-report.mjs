import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

// What a test run left open in jest's own process, found after the harness's components are
// stopped: a handle of global setup's, or of a file run in band (`npm test -- <one file>` runs
// it in jest's process). Each file's own leaks are found when it ends, by leak-environment.mjs,
// which uses describeHandle and endHandle from here. The global teardown calls endLeftovers: it
// names each leftover, ends it (so jest can exit) and fails the run.

/** The other processes holding the pipe of this process's `fd`: who keeps it open. */
function holdersOf(fd) {
  let target;
  try {
    target = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return '';
  }
  const holders = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    if (Number(pid) === process.pid) continue;
    try {
      const fds = readdirSync(`/proc/${pid}/fd`);
      if (!fds.some((f) => readlinkSync(`/proc/${pid}/fd/${f}`) === target)) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      holders.push(`${pid}: ${cmdline.slice(0, 200)}`);
    } catch {
      // gone, or not ours to read
    }
  }
  return holders.length > 0 ? `, held by ${holders.join('; ')}` : '';
}

/** One line per handle that would keep this process alive. */
export function describeHandle(handle) {
  const kind = handle?.constructor?.name ?? typeof handle;
  if (kind === 'ChildProcess') {
    return `child process ${handle.pid}: ${[handle.spawnfile, ...(handle.spawnargs ?? []).slice(1)].join(' ').slice(0, 300)}`;
  }
  if (kind === 'Server') {
    const address = handle.address?.();
    return `server listening on ${typeof address === 'string' ? address : `${address?.address}:${address?.port}`}`;
  }
  if (handle?.remotePort) {
    return `${kind} ${handle.localAddress}:${handle.localPort} -> ${handle.remoteAddress}:${handle.remotePort}${handle.servername ? ` (${handle.servername})` : ''}`;
  }
  if (kind === 'Socket') {
    // A pipe: the stdio of a child process, or this process's own stdio.
    const fd = handle._handle?.fd;
    return `pipe (fd ${fd ?? '?'}${fd === undefined ? '' : holdersOf(fd)})`;
  }
  return kind;
}

/** True for this process's own stdin/stdout/stderr, which never count. */
function isOwnStdio(handle) {
  return handle === process.stdin || handle === process.stdout || handle === process.stderr;
}

/**
 * The handles left open, described; each is ended so the process can exit.
 * Child processes are killed with their process group (they may have forked).
 */
export function endLeftovers() {
  const found = [];
  for (const handle of process._getActiveHandles()) {
    if (isOwnStdio(handle)) continue;
    const kind = handle?.constructor?.name;
    // jest's own workers and reporters talk over these; a pipe of a child is named with it.
    if (kind === 'Socket' && !handle.remotePort && handle._handle?.fd <= 2) continue;
    found.push(describeHandle(handle));
    endHandle(handle);
  }
  return found;
}

/** Ends one handle so that it no longer keeps the process alive; a child with its process group. */
export function endHandle(handle) {
  const kind = handle?.constructor?.name;
  if (kind === 'ChildProcess') {
    try {
      process.kill(-handle.pid, 'SIGKILL');
    } catch {
      handle.kill('SIGKILL');
    }
  } else if (kind === 'Server') {
    handle.close();
    handle.closeAllConnections?.();
  } else if (typeof handle.destroy === 'function') {
    handle.destroy();
  } else if (typeof handle.unref === 'function') {
    handle.unref();
  }
}

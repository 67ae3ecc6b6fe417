/** Per-process resource readings from /proc, for benchmarks (Linux only). */
import { readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system, every thread) a process has used so far. */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Peak resident set size (VmHWM) of a process, in MiB. */
export async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** Seconds a process's main thread has spent so far on a CPU, and runnable but waiting for one. */
export interface MainThreadTimes {
  running: number;
  waiting: number;
}

/**
 * The main thread's times from /proc/<pid>/task/<pid>/schedstat (the kernel's
 * scheduler statistics, in nanoseconds); null where the kernel keeps none.
 * What a phase's wall time leaves over is time it waited for work.
 */
export async function mainThreadTimes(pid: number): Promise<MainThreadTimes | null> {
  try {
    const [running, waiting] = (await readFile(`/proc/${pid}/task/${pid}/schedstat`, 'utf8'))
      .split(' ')
      .map(Number);
    return { running: running! / 1e9, waiting: waiting! / 1e9 };
  } catch {
    return null;
  }
}

/** Resident set size now (VmRSS) of a process, in MiB. */
export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** CPU seconds the whole machine has been busy so far (every core; /proc/stat, not idle or iowait). */
export async function machineBusySeconds(): Promise<number> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0]!;
  const ticks = line.split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  // user nice system idle iowait irq softirq steal ...: idle and iowait are not work.
  return (total - ticks[3]! - ticks[4]!) / TICKS_PER_SECOND;
}

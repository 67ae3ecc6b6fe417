/**
 * What each running sandbox left on the host, written where the driver keeps
 * its state, so an operator that was killed (SIGKILL, a crash, the machine's
 * OOM killer) can end its sandboxes when it starts again. A sandbox's first
 * process does not always die with the operator: bwrap's --die-with-parent is
 * lost when the sandbox changes its credentials, and pasta runs in the
 * background by design, so without this a restarted operator would start the
 * agents a second time beside the first.
 *
 * One file per sandbox, holding each process to end with its start time (the
 * 22nd field of /proc/<pid>/stat), so a pid the kernel has since handed to
 * another process is never signalled.
 */
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A process as recorded: its pid and its start time in clock ticks since boot. */
interface RecordedProcess {
  pid: number;
  startTime: string;
}

/** The start time of `pid` (clock ticks since boot), or null when it is gone. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last `)`.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** The records of one driver's sandboxes, in `dir`. */
export class SandboxRecords {
  constructor(private readonly dir: string) {}

  /** Records the processes of sandbox `name` (those already gone are left out); returns the record. */
  async record(name: string, pids: number[]): Promise<string> {
    const processes: RecordedProcess[] = [];
    for (const pid of pids) {
      const startTime = processStartTime(pid);
      if (startTime !== null) processes.push({ pid, startTime });
    }
    await mkdir(this.dir, { recursive: true });
    const file = join(this.dir, `${name}.json`);
    await writeFile(file, JSON.stringify(processes));
    return file;
  }

  /** Forgets a record once its sandbox has ended. */
  async forget(file: string): Promise<void> {
    await rm(file, { force: true });
  }

  /**
   * Ends every process a previous run of the driver recorded and that is
   * still the same process (SIGKILL: the sandbox's first process takes the
   * whole sandbox with it), and forgets the records; resolves with how many
   * it ended.
   */
  async reapLeftovers(): Promise<number> {
    let files: string[];
    try {
      files = (await readdir(this.dir)).filter((f) => f.endsWith('.json'));
    } catch {
      return 0;
    }
    let ended = 0;
    for (const name of files) {
      const file = join(this.dir, name);
      let processes: RecordedProcess[] = [];
      try {
        processes = JSON.parse(await readFile(file, 'utf8')) as RecordedProcess[];
      } catch {
        // a record cut short by the crash: nothing to go by
      }
      for (const { pid, startTime } of Array.isArray(processes) ? processes : []) {
        if (!Number.isInteger(pid) || pid <= 1 || processStartTime(pid) !== startTime) continue;
        try {
          process.kill(pid, 'SIGKILL');
          ended++;
        } catch {
          // gone meanwhile
        }
      }
      await rm(file, { force: true });
    }
    return ended;
  }
}

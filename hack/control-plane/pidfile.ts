/**
 * A record of the processes a foreground script started, so that `down` (or
 * the next `up`) can stop them if the script itself was killed without a
 * chance to clean up. A pid counts only while its command line still names the
 * binary recorded for it, so a recycled pid is never signalled.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';

/** What is recorded of each process. */
interface Recorded {
  name: string;
  pid: number;
}

/** Writes the pids of `processes` to `file`. */
export async function recordProcesses(file: string, processes: readonly Recorded[]): Promise<void> {
  const rows = processes.map(({ name, pid }) => ({ name, pid }));
  await writeFile(file, JSON.stringify(rows, null, 2));
}

/** Removes the record. */
export async function clearRecordedProcesses(file: string): Promise<void> {
  await rm(file, { force: true });
}

async function isRecordedProcess({ name, pid }: Recorded): Promise<boolean> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.includes(name);
}

/** Stops every recorded process still alive (SIGTERM, then SIGKILL after 10 s); returns how many. */
export async function stopRecordedProcesses(file: string): Promise<number> {
  const rows = JSON.parse(await readFile(file, 'utf8').catch(() => '[]')) as Recorded[];
  const alive: Recorded[] = [];
  for (const row of rows) if (await isRecordedProcess(row)) alive.push(row);
  for (const { pid } of alive) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  for (const row of alive) {
    while (await isRecordedProcess(row)) {
      if (Date.now() > deadline) {
        process.kill(row.pid, 'SIGKILL');
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await clearRecordedProcesses(file);
  return alive.length;
}

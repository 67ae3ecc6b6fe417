/** The upload's progress: a bar on a terminal, one line otherwise. */
import { Presets, SingleBar } from 'cli-progress';
import type { Output } from '../output.js';

/** Human-readable bytes (KiB, MiB). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** A progress reporter for an upload of `total` bytes; call `done` when the answer came. */
export function uploadProgress(
  out: Output,
  total: number,
): { update: (sent: number) => void; done: () => void } {
  if (!out.interactive) {
    out.note(`Uploading ${formatBytes(total)}`);
    return { update: () => undefined, done: () => undefined };
  }
  const bar = new SingleBar(
    {
      format: 'Uploading [{bar}] {percentage}% {sentText}/{totalText}',
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
    },
    Presets.shades_classic,
  );
  bar.start(total, 0, { sentText: formatBytes(0), totalText: formatBytes(total) });
  return {
    update: (sent) => bar.update(sent, { sentText: formatBytes(sent) }),
    done: () => bar.stop(),
  };
}

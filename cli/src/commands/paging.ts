/** The `--limit` / `--offset` options of list commands and the list envelope they read. */
import type { Command } from 'commander';
import { integer } from './agent-fields.js';

/** The control plane's list envelope. */
export interface Page<T = Record<string, unknown>> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
  next_offset: number | null;
}

/** Adds `--limit` and `--offset` to a list command. */
export function pageOptions(cmd: Command): Command {
  return cmd
    .option('--limit <n>', 'page size (1-100)', integer, 20)
    .option('--offset <n>', 'items to skip', integer, 0);
}

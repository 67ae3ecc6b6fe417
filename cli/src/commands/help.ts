/** Help text every command shares. */
import type { Command } from 'commander';

/** Appends an "Examples" section to `cmd`'s help. */
export function withExamples(cmd: Command, examples: readonly string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`);
}

import { describe, expect, it } from '@jest/globals';
import type { Command } from 'commander';
import { buildProgram } from './main.js';

/** Every command of the tree, with its full name (`svc agents list`). */
function commands(cmd: Command, path = cmd.name()): [string, Command][] {
  return [[path, cmd], ...cmd.commands.flatMap((c) => commands(c, `${path} ${c.name()}`))];
}

/** What `--help` prints for `cmd`, the text added after the options included. */
function helpOf(cmd: Command): string {
  let text = '';
  cmd.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  cmd.outputHelp();
  return text;
}

describe('the svc program', () => {
  const all = commands(buildProgram()).filter(([path]) => !path.endsWith(' help'));

  it('has a help with an example on every command', () => {
    const without = all.filter(([, cmd]) => !/\nExamples:\n {2}\$ .*\bsvc /.test(helpOf(cmd)));
    expect(without.map(([path]) => path)).toEqual([]);
  });

  it('takes no secret value as an argument or option anywhere', () => {
    for (const [path, cmd] of all) {
      const names = [
        ...cmd.registeredArguments.map((a) => a.name()),
        ...cmd.options.map((o) => o.long ?? ''),
      ];
      for (const name of names) expect(`${path} ${name}`).not.toMatch(/value|api-key|token/i);
    }
  });
});

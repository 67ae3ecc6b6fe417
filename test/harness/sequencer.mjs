// Jest's own order (failed last time first, then the longest first), except that a file whose
// docblock says `@run-last` goes after all others: it then runs while the other workers finish
// their last short files, close to alone. For files that boot a whole platform of several
// regions and kill its components, which crowd two cores when they meet the other heavy files
// (test/README.md, "Side by side").
import { readFileSync } from 'node:fs';
import Sequencer from '@jest/test-sequencer';

/** Whether the file's leading comment marks it `@run-last`. */
function runsLast(path) {
  const head = readFileSync(path, 'utf8').slice(0, 4000);
  const docblock = /^\s*\/\*\*[\s\S]*?\*\//.exec(head)?.[0] ?? '';
  return /@run-last\b/.test(docblock);
}

export default class RunLastSequencer extends Sequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    const last = ordered.filter((t) => runsLast(t.path));
    return [...ordered.filter((t) => !last.includes(t)), ...last];
  }
}

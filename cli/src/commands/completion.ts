/**
 * `svc completion bash|zsh`: a completion script generated from the program's
 * own commands and options (zsh loads the bash one through bashcompinit), so
 * it never falls behind the commands.
 */
import type { Command } from 'commander';
import { CliError, EXIT } from '../errors.js';
import { withExamples } from './help.js';

/** The words offered after each command path (`svc`, `svc agents`, ...; bash has no empty keys). */
export function completionWords(program: Command): Map<string, string[]> {
  const words = new Map<string, string[]>();
  const visit = (cmd: Command, path: string) => {
    const options = cmd.options.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f));
    words.set(path, [...cmd.commands.map((c) => c.name()), ...options, '--help']);
    for (const sub of cmd.commands) visit(sub, `${path} ${sub.name()}`);
  };
  visit(program, program.name());
  return words;
}

/** The bash completion script for `program`. */
export function bashCompletion(program: Command): string {
  const entries = [...completionWords(program)]
    .map(([path, words]) => `  [${JSON.stringify(path)}]=${JSON.stringify(words.join(' '))}`)
    .join('\n');
  return `# svc completion (bash; in zsh after: autoload -U +X bashcompinit && bashcompinit)
declare -gA _svc_words=(
${entries}
)
_svc_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path=svc w i
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ $w == -* ]] && continue
    if [[ -n "\${_svc_words["$path $w"]+x}" ]]; then path="$path $w"; fi
  done
  COMPREPLY=($(compgen -W "\${_svc_words[$path]}" -- "$cur"))
}
complete -F _svc_complete svc
`;
}

/** Adds `svc completion` to `program`. */
export function registerCompletionCommand(program: Command): void {
  withExamples(
    program
      .command('completion <shell>')
      .description('Print a shell completion script (bash or zsh).')
      .action((shell: string) => {
        if (shell === 'bash') process.stdout.write(bashCompletion(program));
        else if (shell === 'zsh')
          process.stdout.write(
            `autoload -U +X bashcompinit && bashcompinit\n${bashCompletion(program)}`,
          );
        else throw new CliError(`No completion for ${shell}: use bash or zsh.`, EXIT.usage);
      }),
    ['svc completion bash >> ~/.bashrc', 'source <(svc completion zsh)'],
  );
}

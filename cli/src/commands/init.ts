/** `svc init`: writes `svc.yaml` and `.svcignore` for a runtime into a project directory. */
import { access, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { stringify } from 'yaml';
import { BUILT_IN_EXCLUSIONS } from '../../../common/code-archive.js';
import { contextOf } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { withExamples } from './help.js';

const RUNTIMES = [
  'python3.11',
  'python3.12',
  'python3.13',
  'node20',
  'node22',
  'node20-ts',
  'node22-ts',
  'bun',
  'dockerfile',
] as const;

/** The entry point a runtime loads by default. */
function defaultEntrypoint(runtime: string): string | undefined {
  if (runtime.startsWith('python')) return 'main.py';
  if (runtime.endsWith('-ts')) return 'index.ts';
  if (runtime === 'dockerfile') return undefined;
  return 'index.js';
}

/** What `.svcignore` starts with for a runtime (the built-in exclusions apply anyway). */
function ignoreText(runtime: string): string {
  const perRuntime = runtime.startsWith('python')
    ? ['.venv/', '*.pyc', '.pytest_cache/', '.mypy_cache/']
    : runtime === 'dockerfile'
      ? []
      : ['dist/', 'coverage/'];
  return [
    '# Left out of the upload, in .gitignore syntax. Always left out as well:',
    `# ${BUILT_IN_EXCLUSIONS.join(' ')}`,
    ...perRuntime,
    'tests/',
    '',
  ].join('\n');
}

/** Adds `svc init` to `program`. */
export function registerInitCommand(program: Command): void {
  withExamples(
    program
      .command('init [dir]')
      .description(
        'Write svc.yaml and .svcignore for a runtime (refuses to overwrite without --force).',
      )
      .addOption(
        new Option('--runtime <runtime>', 'the runtime').choices(RUNTIMES).default('python3.12'),
      )
      .addOption(
        new Option('--type <type>', 'the agent type')
          .choices(['service', 'job'])
          .default('service'),
      )
      .option('--name <name>', 'the agent name (default: the directory name)')
      .option('--force', 'overwrite existing files')
      .action(
        async (
          dir: string | undefined,
          opts: { runtime: string; type: string; name?: string; force?: boolean },
          cmd: Command,
        ) => {
          const ctx = contextOf(cmd);
          const root = resolve(dir ?? '.');
          const settings: Record<string, unknown> = {
            name:
              opts.name ??
              basename(root)
                .toLowerCase()
                .replace(/[^a-z0-9-]+/g, '-'),
            runtime: opts.runtime,
            type: opts.type,
          };
          const entrypoint = defaultEntrypoint(opts.runtime);
          if (entrypoint) settings.entrypoint = entrypoint;
          const files = {
            'svc.yaml': stringify(settings),
            '.svcignore': ignoreText(opts.runtime),
          };
          for (const name of Object.keys(files)) {
            const exists = await access(join(root, name)).then(
              () => true,
              () => false,
            );
            if (exists && !opts.force)
              throw new CliError(
                `${name} exists in ${root}; use --force to overwrite.`,
                EXIT.rejected,
              );
          }
          for (const [name, text] of Object.entries(files)) await writeFile(join(root, name), text);
          ctx.out.result({ dir: root, files: Object.keys(files), settings }, () =>
            ctx.out.ok(
              `Wrote svc.yaml and .svcignore in ${root}. Next: svc deploy ${dir ?? ''}`.trimEnd(),
            ),
          );
        },
      ),
    ['svc init --runtime python3.12', 'svc init my-job --type job --runtime node22'],
  );
}

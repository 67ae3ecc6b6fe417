/**
 * `svc secrets set|list|rm|rotate`: an agent's secrets, or a workspace's with
 * `--workspace`. Values come from stdin or an env file only, never from an
 * argument, so they stay out of shell history and process listings; no
 * answer carries a value back.
 */
import { readFile } from 'node:fs/promises';
import { parseEnv } from 'node:util';
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { readStdin } from '../stdin.js';
import { withExamples } from './help.js';
import { pageOptions, type Page } from './paging.js';

interface TargetOptions {
  workspace?: boolean;
}

const enc = encodeURIComponent;

/** The secrets path of an agent or (with --workspace) a workspace. */
function secretsPath(target: string, opts: TargetOptions): string {
  return opts.workspace
    ? `/api/v1/workspaces/${enc(target)}/secrets`
    : `/api/v1/agents/${enc(target)}/secrets`;
}

const WORKSPACE_OPTION = ['-w, --workspace', 'the target is a workspace, not an agent'] as const;

/** Adds `svc secrets` to `program`. */
export function registerSecretCommands(program: Command): void {
  const secrets = withExamples(
    program
      .command('secrets')
      .description(
        "Manage an agent's (or a workspace's) secrets; values are read from stdin or an env file.",
      ),
    [
      'svc secrets set hello-py API_TOKEN < token.txt',
      'svc secrets list hello-py',
      'svc secrets rm hello-py API_TOKEN',
    ],
  );

  withExamples(
    secrets
      .command('set <target> [key]')
      .description(
        'Create or replace a secret; the value is read from stdin (or many from --from-env-file).',
      )
      .option(...WORKSPACE_OPTION)
      .option('--from-env-file <file>', 'set every KEY=value of a .env-style file')
      .option('--description <text>', 'a description of the secret')
      .action(
        async (
          target: string,
          key: string | undefined,
          opts: TargetOptions & { fromEnvFile?: string; description?: string },
          cmd: Command,
        ) => {
          const ctx = contextOf(cmd);
          const values = await valuesToSet(key, opts.fromEnvFile);
          const client = await ctx.control();
          const written = [];
          for (const [name, value] of Object.entries(values)) {
            written.push(
              await client.request<Record<string, unknown>>('POST', secretsPath(target, opts), {
                json: { key: name, value, description: opts.description },
              }),
            );
          }
          ctx.out.result(written, () =>
            ctx.out.ok(`Set ${Object.keys(values).join(', ')} on ${target}.`),
          );
        },
      ),
    [
      'printf %s "$TOKEN" | svc secrets set hello-py API_TOKEN',
      'svc secrets set hello-py API_TOKEN < token.txt',
      'svc secrets set hello-py --from-env-file .env.production',
      'svc secrets set --workspace team SHARED_KEY < key.txt',
    ],
  );

  withExamples(
    pageOptions(secrets.command('list <target>'))
      .description('The keys (never the values).')
      .option(...WORKSPACE_OPTION)
      .action(
        async (target: string, opts: TargetOptions & { limit: number; offset: number }, cmd) => {
          const ctx = contextOf(cmd);
          const page = await (
            await ctx.control()
          ).request<Page>('GET', secretsPath(target, opts), {
            query: { limit: opts.limit, offset: opts.offset },
          });
          ctx.out.list(page.items, ['key', 'description', 'updated_at'], page);
        },
      ),
    ['svc secrets list hello-py', 'svc secrets list --workspace team --json'],
  );

  withExamples(
    secrets
      .command('rm <target> <key>')
      .description('Delete a secret; a running service restarts without it.')
      .option(...WORKSPACE_OPTION)
      .action(async (target: string, key: string, opts: TargetOptions, cmd: Command) => {
        const ctx = contextOf(cmd);
        await (await ctx.control()).request('DELETE', `${secretsPath(target, opts)}/${enc(key)}`);
        ctx.out.result({ deleted: key }, () => ctx.out.ok(`Deleted ${key} from ${target}.`));
      }),
    ['svc secrets rm hello-py API_TOKEN'],
  );

  withExamples(
    secrets
      .command('rotate <agent> <key>')
      .description("Replace an existing secret's value (read from stdin) and roll the service.")
      .action(async (agent: string, key: string, _opts, cmd: Command) => {
        const ctx = contextOf(cmd);
        const value = await readValue(key);
        const record = await (
          await ctx.control()
        ).request<Record<string, unknown>>(
          'POST',
          `/api/v1/agents/${enc(agent)}/secrets/${enc(key)}/rotate`,
          { json: { value } },
        );
        ctx.out.result(record, () => ctx.out.ok(`Rotated ${key} on ${agent}.`));
      }),
    ['svc secrets rotate hello-py API_TOKEN < new-token.txt'],
  );
}

async function readValue(key: string): Promise<string> {
  const value = await readStdin(`Value of ${key}: `);
  if (value === '') throw new CliError(`No value for ${key} on stdin.`, EXIT.usage);
  return value;
}

/** The key-value pairs to set: one key with its value from stdin, or every pair of an env file. */
async function valuesToSet(
  key: string | undefined,
  envFile: string | undefined,
): Promise<Record<string, string>> {
  if (envFile !== undefined) {
    if (key !== undefined)
      throw new CliError('Give a key or --from-env-file, not both.', EXIT.usage);
    const values = Object.fromEntries(
      Object.entries(parseEnv(await readFile(envFile, 'utf8'))).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
    if (Object.keys(values).length === 0)
      throw new CliError(`No KEY=value lines in ${envFile}.`, EXIT.usage);
    return values;
  }
  if (key === undefined)
    throw new CliError('Name the key (its value is read from stdin).', EXIT.usage);
  return { [key]: await readValue(key) };
}

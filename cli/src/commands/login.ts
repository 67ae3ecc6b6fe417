/** `svc login`, `svc logout`, `svc whoami` and `svc profiles`: keys and the platforms they open. */
import type { Command } from 'commander';
import { configPath, readConfig, writeConfig } from '../config/config-file.js';
import { contextOf } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { ApiClient } from '../http/api-client.js';
import { readStdin } from '../stdin.js';
import { withExamples } from './help.js';

/** Adds the account commands to `program`. */
export function registerLoginCommands(program: Command): void {
  withExamples(
    program
      .command('login')
      .summary('Check an API key and store it in a profile')
      .description(
        'Check an API key with GET /auth/me and store it in a profile (mode 0600). The key is read from SVC_API_KEY or stdin, never from an argument.',
      )
      .action(async (_opts, cmd: Command) => {
        const ctx = contextOf(cmd);
        const conn = await ctx.connection(false);
        const key = process.env.SVC_API_KEY || (await readStdin('API key: ')).trim();
        if (!key) throw new CliError('No key on stdin or in SVC_API_KEY.', EXIT.usage);
        const me = await new ApiClient({ baseUrl: conn.apiUrl, apiKey: key }).request<
          Record<string, unknown>
        >('GET', '/api/v1/auth/me');
        const path = configPath();
        const config = await readConfig(path);
        const name = ctx.options.profile ?? config.current ?? 'default';
        config.profiles[name] = {
          api_url: conn.apiUrl,
          vectors_url: conn.vectorsUrl,
          api_key: key,
        };
        config.current = name;
        await writeConfig(path, config);
        ctx.out.result({ profile: name, api_url: conn.apiUrl, account: me }, () =>
          ctx.out.ok(`Logged in to ${conn.apiUrl} as profile ${name} (stored in ${path}).`),
        );
      }),
    [
      'svc login < key.txt',
      'SVC_API_KEY=svc_live_... svc login --profile prod --api-url https://api.example.com',
    ],
  );

  const logout = program
    .command('logout')
    .description('Forget the stored key of a profile (the current one unless --profile).')
    .action(async (_opts, cmd: Command) => {
      const ctx = contextOf(cmd);
      const path = configPath();
      const config = await readConfig(path);
      const name = ctx.options.profile ?? config.current;
      if (!name || !config.profiles[name]) throw new CliError('No such profile.', EXIT.notFound);
      delete config.profiles[name];
      if (config.current === name) config.current = Object.keys(config.profiles)[0] ?? null;
      await writeConfig(path, config);
      ctx.out.ok(`Removed profile ${name}.`);
    });
  withExamples(logout, ['svc logout', 'svc logout --profile staging']);

  withExamples(
    program
      .command('whoami')
      .description('The account of the key in use, and where the address and key came from.')
      .action(async (_opts, cmd: Command) => {
        const ctx = contextOf(cmd);
        const conn = await ctx.connection();
        const me = await (
          await ctx.control()
        ).request<Record<string, unknown>>('GET', '/api/v1/auth/me');
        const value = {
          ...me,
          api_url: conn.apiUrl,
          vectors_url: conn.vectorsUrl,
          profile: conn.profile,
          sources: conn.sources,
        };
        ctx.out.record(value);
      }),
    ['svc whoami', 'svc whoami --json | jq .sources'],
  );

  const profiles = withExamples(
    program.command('profiles').description('List or switch stored profiles.'),
    ['svc profiles', 'svc profiles use prod'],
  );
  const list = profiles
    .command('list', { isDefault: true })
    .description('The stored profiles (keys are not shown).')
    .action(async (_opts, cmd: Command) => {
      const ctx = contextOf(cmd);
      const config = await readConfig(configPath());
      const rows = Object.entries(config.profiles).map(([name, p]) => ({
        current: name === config.current ? '*' : '',
        name,
        api_url: p.api_url,
        vectors_url: p.vectors_url ?? null,
      }));
      ctx.out.list(rows, ['current', 'name', 'api_url', 'vectors_url']);
    });
  withExamples(list, ['svc profiles list', 'svc profiles list --json']);
  withExamples(
    profiles
      .command('use <name>')
      .description('Make a stored profile the current one.')
      .action(async (name: string, _opts, cmd: Command) => {
        const ctx = contextOf(cmd);
        const path = configPath();
        const config = await readConfig(path);
        if (!config.profiles[name]) throw new CliError(`No profile named ${name}.`, EXIT.notFound);
        config.current = name;
        await writeConfig(path, config);
        ctx.out.ok(`Using profile ${name}.`);
      }),
    ['svc profiles use staging'],
  );
}

/** `svc workspaces ...`, `svc operations get` and `svc regions`: workspaces and where things run. */
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { withExamples } from './help.js';
import { pageOptions, type Page } from './paging.js';

const enc = encodeURIComponent;
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds the workspace and region commands to `program`. */
export function registerWorkspaceCommands(program: Command): void {
  const workspaces = withExamples(
    program.command('workspaces').description('Group agents and collections.'),
    ['svc workspaces', 'svc workspaces create team', 'svc workspaces agents team'],
  );

  withExamples(
    pageOptions(workspaces.command('list', { isDefault: true }))
      .description("The account's workspaces.")
      .action(async (opts: { limit: number; offset: number }, cmd: Command) => {
        const ctx = contextOf(cmd);
        const page = await (
          await ctx.control()
        ).request<Page>('GET', '/api/v1/workspaces', {
          query: { limit: opts.limit, offset: opts.offset },
        });
        ctx.out.list(page.items, ['name', 'regions', 'description', 'created_at'], page);
      }),
    ['svc workspaces'],
  );

  withExamples(
    workspaces
      .command('get <workspace>')
      .description('One workspace.')
      .action(async (workspace: string, _opts, cmd: Command) => {
        const ctx = contextOf(cmd);
        ctx.out.record(
          await (await ctx.control()).request('GET', `/api/v1/workspaces/${enc(workspace)}`),
        );
      }),
    ['svc workspaces get team'],
  );

  withExamples(
    workspaces
      .command('create <name>')
      .description('Create a workspace (regions default to the account home region).')
      .option('--description <text>', 'a description')
      .option('--region <region>', 'a region (repeat for several)', collect)
      .action(
        async (name: string, opts: { description?: string; region?: string[] }, cmd: Command) => {
          const ctx = contextOf(cmd);
          ctx.out.record(
            await (
              await ctx.control()
            ).request('POST', '/api/v1/workspaces', {
              json: { name, description: opts.description, regions: opts.region },
            }),
          );
        },
      ),
    ['svc workspaces create team --region local'],
  );

  withExamples(
    workspaces
      .command('update <workspace>')
      .description('Change the description (the name is fixed).')
      .requiredOption('--description <text>', 'the new description')
      .action(async (workspace: string, opts: { description: string }, cmd: Command) => {
        const ctx = contextOf(cmd);
        ctx.out.record(
          await (
            await ctx.control()
          ).request('PATCH', `/api/v1/workspaces/${enc(workspace)}`, {
            json: { description: opts.description },
          }),
        );
      }),
    ['svc workspaces update team --description "the search team"'],
  );

  withExamples(
    workspaces
      .command('delete <workspace>')
      .description('Delete an empty workspace (409 WORKSPACE_NOT_EMPTY lists what is still in it).')
      .action(async (workspace: string, _opts, cmd: Command) => {
        const ctx = contextOf(cmd);
        ctx.out.record(
          await (await ctx.control()).request('DELETE', `/api/v1/workspaces/${enc(workspace)}`),
        );
      }),
    ['svc workspaces delete team'],
  );

  withExamples(
    pageOptions(workspaces.command('agents <workspace>'))
      .description('The agents in a workspace.')
      .action(async (workspace: string, opts: { limit: number; offset: number }, cmd: Command) => {
        const ctx = contextOf(cmd);
        const page = await (
          await ctx.control()
        ).request<Page>('GET', `/api/v1/workspaces/${enc(workspace)}/agents`, {
          query: { limit: opts.limit, offset: opts.offset },
        });
        ctx.out.list(page.items, ['name', 'agent_type', 'status', 'deployed', 'url'], page);
      }),
    ['svc workspaces agents team'],
  );

  withExamples(
    workspaces
      .command('set-regions <workspace> <regions...>')
      .description(
        'Move a workspace to this final set of regions (a resumable operation; poll it with svc operations get).',
      )
      .action(async (workspace: string, regions: string[], _opts, cmd: Command) => {
        const ctx = contextOf(cmd);
        ctx.out.record(
          await (
            await ctx.control()
          ).request('PATCH', `/api/v1/workspaces/${enc(workspace)}/regions`, { json: { regions } }),
        );
      }),
    ['svc workspaces set-regions team local eu-west'],
  );

  const operations = withExamples(
    program.command('operations').description('Region-change operations.'),
    ['svc operations get 9b1e...'],
  );
  withExamples(
    operations
      .command('get <operation-id>')
      .description('The state of a region change.')
      .action(async (id: string, _opts, cmd: Command) => {
        const ctx = contextOf(cmd);
        ctx.out.record(await (await ctx.control()).request('GET', `/api/v1/operations/${enc(id)}`));
      }),
    ['svc operations get 9b1e...'],
  );

  withExamples(
    program
      .command('regions')
      .description('The regions of the platform and their vector-plane addresses.')
      .action(async (_opts, cmd: Command) => {
        const ctx = contextOf(cmd);
        const answer = await (
          await ctx.vectors()
        ).request<{ result: Record<string, string> }>('GET', '/api/v1/regions');
        ctx.out.list(
          Object.entries(answer.result).map(([region, url]) => ({ region, url })),
          ['region', 'url'],
          answer,
        );
      }),
    ['svc regions'],
  );
}

/** `svc deployments ...`, `svc rollback` and `svc cancel`: an agent's versions. */
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { CliError } from '../errors.js';
import { followDeployment, type DeploymentRecord } from '../deploy/follow-deployment.js';
import { withExamples } from './help.js';
import { pageOptions, type Page } from './paging.js';

const COLUMNS = ['version', 'state', 'id', 'created_at', 'deployed_at', 'error_message'] as const;
const enc = encodeURIComponent;

/** Adds the deployment commands to `program`. */
export function registerDeploymentCommands(program: Command): void {
  const deployments = withExamples(
    program.command('deployments').description('List and inspect deployments.'),
    ['svc deployments list hello-py', 'svc deployments get 3f6c... --follow'],
  );

  withExamples(
    pageOptions(deployments.command('list [agent]', { isDefault: true }))
      .description("An agent's deployments (or the account's), newest first.")
      .option('--state <state>', 'only deployments in this state (active, failed, ...)')
      .action(
        async (
          agent: string | undefined,
          opts: { limit: number; offset: number; state?: string },
          cmd: Command,
        ) => {
          const ctx = contextOf(cmd);
          const path = agent ? `/api/v1/agents/${enc(agent)}/deployments` : '/api/v1/deployments';
          const page = await (
            await ctx.control()
          ).request<Page>('GET', path, {
            query: { limit: opts.limit, offset: opts.offset, state: opts.state },
          });
          ctx.out.list(page.items, COLUMNS, page);
        },
      ),
    ['svc deployments list hello-py', 'svc deployments list --state failed'],
  );

  withExamples(
    deployments
      .command('get <deployment-id>')
      .description('One deployment: state, error_message, timestamps.')
      .option('-f, --follow', 'wait until it is active or failed')
      .action(async (id: string, opts: { follow?: boolean }, cmd: Command) => {
        const ctx = contextOf(cmd);
        const client = await ctx.control();
        const record = opts.follow
          ? await followDeployment(client, ctx.out, id)
          : await client.request<DeploymentRecord>('GET', `/api/v1/deployments/${enc(id)}`);
        ctx.out.record(record);
        if (opts.follow && record.state === 'failed')
          throw new CliError(`Deployment ${id} failed.`);
      }),
    ['svc deployments get 3f6c... --follow'],
  );

  withExamples(
    program
      .command('rollback <agent> <version>')
      .description("Deploy a version's stored code again as the next version.")
      .option('--no-follow', 'return once accepted')
      .action(async (agent: string, version: string, opts: { follow: boolean }, cmd: Command) => {
        const ctx = contextOf(cmd);
        const client = await ctx.control();
        const created = await client.request<DeploymentRecord>(
          'POST',
          `/api/v1/agents/${enc(agent)}/deployments/${enc(version)}/rollback`,
        );
        ctx.out.note(`Rolling back ${agent} to version ${version} as version ${created.version}.`);
        const record = opts.follow ? await followDeployment(client, ctx.out, created.id) : created;
        ctx.out.record(record, ['id', 'version', 'state', 'error_message']);
        if (record.state === 'failed') throw new CliError(`Deployment ${record.id} failed.`);
      }),
    ['svc rollback hello-py 3'],
  );

  withExamples(
    program
      .command('cancel <agent> <version>')
      .description('Cancel a deployment that is queued or building.')
      .option('--reason <text>', 'recorded as cancellation_reason')
      .action(async (agent: string, version: string, opts: { reason?: string }, cmd: Command) => {
        const ctx = contextOf(cmd);
        const record = await (
          await ctx.control()
        ).request<DeploymentRecord>(
          'POST',
          `/api/v1/agents/${enc(agent)}/deployments/${enc(version)}/cancel`,
          { json: opts.reason ? { reason: opts.reason } : {} },
        );
        ctx.out.record(record, ['id', 'version', 'state', 'cancellation_requested']);
      }),
    ['svc cancel hello-py 4 --reason "wrong branch"'],
  );
}

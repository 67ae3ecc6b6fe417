/** `svc agents ...`: create, read, update and delete agents, and their lifecycle actions. */
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { agentFields, agentSettingOptions } from './agent-fields.js';
import { withExamples } from './help.js';
import { pageOptions, type Page } from './paging.js';

/** The columns of an agent table. */
const AGENT_COLUMNS = ['name', 'agent_type', 'runtime', 'status', 'deployed', 'url'] as const;
const enc = encodeURIComponent;

/** Adds `svc agents` to `program`. */
export function registerAgentCommands(program: Command): void {
  const agents = withExamples(
    program.command('agents').description('Create, inspect and manage agents.'),
    [
      'svc agents',
      'svc agents create hello-py',
      'svc agents get hello-py --json',
      'svc agents stop hello-py',
    ],
  );

  withExamples(
    pageOptions(agents.command('list', { isDefault: true }))
      .description('The agents of the account, a page at a time.')
      .action(async (opts: { limit: number; offset: number }, cmd: Command) => {
        const ctx = contextOf(cmd);
        const page = await (
          await ctx.control()
        ).request<Page>('GET', '/api/v1/agents', {
          query: { limit: opts.limit, offset: opts.offset },
        });
        ctx.out.list(page.items, AGENT_COLUMNS, page);
      }),
    ['svc agents', 'svc agents list --json | jq -r ".items[].name"'],
  );

  withExamples(
    agents
      .command('get <agent>')
      .description('One agent, by name or UUID.')
      .action(async (agent: string, _opts, cmd: Command) => {
        const ctx = contextOf(cmd);
        ctx.out.record(await (await ctx.control()).request('GET', `/api/v1/agents/${enc(agent)}`));
      }),
    ['svc agents get hello-py', 'svc agents get hello-py --json | jq -r .url'],
  );

  withExamples(
    agentSettingOptions(agents.command('create <name>'))
      .description('Create an agent (it runs nothing until its first deploy).')
      .action(async (name: string, opts: Record<string, unknown>, cmd: Command) => {
        const ctx = contextOf(cmd);
        const agent = await (
          await ctx.control()
        ).request<Record<string, unknown>>('POST', '/api/v1/agents', {
          json: { name, ...agentFields(opts) },
        });
        ctx.out.result(agent, () => ctx.out.ok(`Created agent ${name} (${String(agent.id)}).`));
      }),
    ['svc agents create hello-py', 'svc agents create tick --type job --runtime python3.12'],
  );

  withExamples(
    agentSettingOptions(agents.command('update <agent>'))
      .option('--rename <name>', 'a new name (the address stays)')
      .description('Change settings; they apply on the next deploy.')
      .action(async (agent: string, opts: Record<string, unknown>, cmd: Command) => {
        const ctx = contextOf(cmd);
        const fields = agentFields(opts);
        if (opts.rename !== undefined) fields.name = opts.rename;
        ctx.out.record(
          await (
            await ctx.control()
          ).request('PATCH', `/api/v1/agents/${enc(agent)}`, {
            json: fields,
          }),
        );
      }),
    ['svc agents update hello-py --memory 512', 'svc agents update hello-py --rename hello'],
  );

  for (const [action, summary] of [
    ['delete', 'Delete the agent (its name is free at once; workloads go in the background).'],
    ['stop', 'Stop a running agent (status paused).'],
    ['start', 'Start a stopped agent again.'],
    ['archive', 'Archive a deployed agent.'],
    ['restore', 'Restore an archived agent.'],
  ] as const) {
    withExamples(
      agents
        .command(`${action} <agent>`)
        .description(summary)
        .action(async (agent: string, _opts, cmd: Command) => {
          const ctx = contextOf(cmd);
          const client = await ctx.control();
          const answer = await client.request<Record<string, unknown>>(
            action === 'delete' ? 'DELETE' : 'POST',
            action === 'delete'
              ? `/api/v1/agents/${enc(agent)}`
              : `/api/v1/agents/${enc(agent)}/${action}`,
          );
          ctx.out.result(answer, () =>
            ctx.out.ok(`${agent}: ${String(answer?.status ?? `${action} accepted`)}`),
          );
        }),
      [`svc agents ${action} hello-py`],
    );
  }

  withExamples(
    agents
      .command('status <agent>')
      .description("The agent's machines as the cluster reports them now.")
      .action(async (agent: string, _opts, cmd: Command) => {
        const ctx = contextOf(cmd);
        const detail = await (
          await ctx.control()
        ).request<{
          machines: Record<string, unknown>[];
        }>('GET', `/api/v1/agents/${enc(agent)}/status`);
        ctx.out.result(detail, () => {
          ctx.out.record({ ...detail, machines: detail.machines.length });
          if (detail.machines.length)
            ctx.out.list(detail.machines, ['id', 'region', 'state', 'health', 'source']);
        });
      }),
    ['svc agents status hello-py'],
  );

  withExamples(
    agents
      .command('yaml <agent>')
      .description("The agent's settings as svc.yaml, ready to commit beside the code.")
      .action(async (agent: string, _opts, cmd: Command) => {
        const ctx = contextOf(cmd);
        const text = await (
          await ctx.control()
        ).requestText('GET', `/api/v1/agents/${enc(agent)}/yaml`);
        ctx.out.line(text.trimEnd());
      }),
    ['svc agents yaml hello-py > svc.yaml'],
  );
}

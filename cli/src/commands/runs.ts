/** `svc run`, `svc runs` and `svc schedule pause|resume`. */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { followDeployment } from '../deploy/follow-deployment.js';
import { readStdin } from '../stdin.js';
import { withExamples } from './help.js';
import { pageOptions, type Page } from './paging.js';

const enc = encodeURIComponent;

interface RunOptions {
  payload?: string;
  payloadFile?: string;
  wait?: boolean;
}

/** The run's payload: `--payload` JSON, `--payload-file` (`-` for stdin), or none. */
async function payloadOf(opts: RunOptions): Promise<unknown> {
  if (opts.payload !== undefined && opts.payloadFile !== undefined)
    throw new CliError('Give --payload or --payload-file, not both.', EXIT.usage);
  const text =
    opts.payload ??
    (opts.payloadFile === '-'
      ? await readStdin('Payload (JSON): ')
      : opts.payloadFile !== undefined
        ? await readFile(opts.payloadFile, 'utf8')
        : undefined);
  if (text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`The payload is not JSON: ${(err as Error).message}`, EXIT.usage);
  }
}

/** Adds the run commands to `program`. */
export function registerRunCommands(program: Command): void {
  withExamples(
    program
      .command('run <agent>')
      .description(
        "Run the agent's active version now (a job runs once; a service gets POST /svc/run).",
      )
      .option('-d, --payload <json>', 'the payload, a JSON object')
      .option('-f, --payload-file <file>', 'read the payload from a file (- for stdin)')
      .option('-w, --wait', 'wait for the run to finish and exit 1 when it failed')
      .action(async (agent: string, opts: RunOptions, cmd: Command) => {
        const ctx = contextOf(cmd);
        const client = await ctx.control();
        const accepted = await client.request<{ deployment_id: string }>(
          'POST',
          `/api/v1/agents/${enc(agent)}/run`,
          { json: { payload: await payloadOf(opts) } },
        );
        if (!opts.wait) {
          ctx.out.result(accepted, () => ctx.out.line(accepted.deployment_id));
          return;
        }
        const run = await followDeployment(client, ctx.out, accepted.deployment_id);
        ctx.out.record(run, ['id', 'state', 'error_message']);
        if (run.state === 'failed') throw new CliError(`Run ${run.id} failed.`);
      }),
    [
      `svc run tick --payload '{"hello":"now"}' --wait`,
      'svc run tick --payload-file - < payload.json',
    ],
  );

  withExamples(
    pageOptions(program.command('runs <agent>'))
      .description("The agent's manual and scheduled runs, newest first.")
      .action(async (agent: string, opts: { limit: number; offset: number }, cmd: Command) => {
        const ctx = contextOf(cmd);
        const page = await (
          await ctx.control()
        ).request<Page>('GET', `/api/v1/agents/${enc(agent)}/runs`, {
          query: { limit: opts.limit, offset: opts.offset },
        });
        ctx.out.list(
          page.items,
          ['id', 'trigger_source', 'state', 'created_at', 'duration_seconds', 'error_message'],
          page,
        );
      }),
    ['svc runs tick', 'svc runs tick --json | jq ".items[0].state"'],
  );

  const schedule = withExamples(
    program.command('schedule').description("Pause or resume an agent's schedule."),
    ['svc schedule pause tick', 'svc schedule resume tick'],
  );
  for (const action of ['pause', 'resume'] as const) {
    withExamples(
      schedule
        .command(`${action} <agent>`)
        .description(
          action === 'pause'
            ? 'Stop the schedule firing (idempotent).'
            : 'Fire again from the next occurrence after now (no backfill).',
        )
        .action(async (agent: string, _opts, cmd: Command) => {
          const ctx = contextOf(cmd);
          ctx.out.record(
            await (
              await ctx.control()
            ).request('POST', `/api/v1/agents/${enc(agent)}/schedule/${action}`),
          );
        }),
      [`svc schedule ${action} tick`],
    );
  }
}

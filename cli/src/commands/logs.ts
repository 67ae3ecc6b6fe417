/**
 * `svc logs <agent>`: the newest lines, or with `--follow` every line from
 * then on, read through the keyset cursor (`after_id` = the last page's
 * `next_after_id`, again at once while `has_more`, else after a pause). With
 * `--json` each entry is one JSON line, so a follow can be piped.
 */
import type { Command } from 'commander';
import { contextOf, type Context } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { integer } from './agent-fields.js';
import { withExamples } from './help.js';

interface LogEntry {
  id: number;
  timestamp: string;
  stream: string;
  level: string;
  message: string;
}

interface LogPage {
  items: LogEntry[];
  next_after_id: number;
  has_more: boolean;
}

interface LogOptions {
  follow?: boolean;
  since?: string;
  level?: string;
  stream?: string;
  limit: number;
  pollMs: number;
}

/** `--since`: a date-time as it is, or a duration back from now (`90s`, `15m`, `2h`, `1d`). */
export function sinceToDateTime(since: string, now: number = Date.now()): string {
  const match = /^(\d+)([smhd])$/.exec(since.trim());
  if (match) {
    const unit = { s: 1, m: 60, h: 3600, d: 86400 }[match[2] as 's' | 'm' | 'h' | 'd'];
    return new Date(now - Number(match[1]) * unit * 1000).toISOString();
  }
  if (Number.isNaN(Date.parse(since)))
    throw new CliError(`--since ${since}: give a date-time or a duration like 15m.`, EXIT.usage);
  return since;
}

/** Adds `svc logs` to `program`. */
export function registerLogsCommand(program: Command): void {
  withExamples(
    program
      .command('logs <agent>')
      .description(
        "An agent's logs (kept 7 days): the newest lines, or every new line with --follow.",
      )
      .option('-f, --follow', 'keep printing new lines until Ctrl-C')
      .option('--since <when>', 'only lines at or after a date-time or a duration ago (15m, 2h)')
      .option(
        '--level <levels>',
        'only these levels, comma-separated (INFO,WARN,ERROR,DEBUG,SYSTEM)',
      )
      .option('--stream <streams>', 'only these streams, comma-separated (stdout,stderr,system)')
      .option('-n, --limit <n>', 'lines per page (the newest n without --follow)', integer, 100)
      .option('--poll-ms <ms>', 'pause between reads when following', integer, 1000)
      .action(async (agent: string, opts: LogOptions, cmd: Command) =>
        readLogs(contextOf(cmd), agent, opts),
      ),
    [
      'svc logs hello-py',
      'svc logs hello-py --follow --stream stdout',
      'svc logs tick --since 1h --level ERROR,WARN',
      'svc logs hello-py -f --json | jq -r .message',
    ],
  );
}

async function readLogs(ctx: Context, agent: string, opts: LogOptions): Promise<void> {
  const { out } = ctx;
  const client = await ctx.control();
  const filters = {
    limit: opts.limit,
    level: opts.level,
    stream: opts.stream,
    since: opts.since === undefined ? undefined : sinceToDateTime(opts.since),
  };
  const path = `/api/v1/agents/${encodeURIComponent(agent)}/logs`;
  const print = (entry: LogEntry) => {
    if (out.json) {
      out.line(JSON.stringify(entry));
      return;
    }
    const c = out.colors;
    const level =
      entry.level === 'ERROR'
        ? c.red(entry.level)
        : entry.level === 'WARN'
          ? c.yellow(entry.level)
          : c.dim(entry.level);
    out.line(`${c.dim(entry.timestamp)} ${level.padEnd(5)} ${entry.message}`);
  };

  let page = await client.request<LogPage>('GET', path, { query: filters });
  if (!opts.follow && out.json) {
    out.line(JSON.stringify(page, null, 2));
    return;
  }
  page.items.forEach(print);
  if (!opts.follow) return;
  out.note(out.errColors.dim(`Following ${agent}'s logs (Ctrl-C to stop)...`));
  process.once('SIGINT', () => process.exit(EXIT.interrupted));
  for (;;) {
    const after = page.next_after_id;
    if (!page.has_more) await new Promise((resolve) => setTimeout(resolve, opts.pollMs));
    page = await client.request<LogPage>('GET', path, { query: { ...filters, after_id: after } });
    page.items.forEach(print);
  }
}

/** The options of `agents create` and `agents update`, turned into AgentCreate / AgentUpdate fields. */
import { type Command, InvalidArgumentError } from 'commander';

/** Adds the agent setting options to `cmd`. */
export function agentSettingOptions(cmd: Command): Command {
  return cmd
    .option('--type <type>', 'service or job')
    .option('--runtime <runtime>', 'python3.11, python3.12, python3.13, node20, node22, bun, ...')
    .option('--entrypoint <file>', 'the module or script the runtime loads')
    .option('--memory <mb>', 'memory in MiB', integer)
    .option('--idle-timeout <minutes>', 'minutes idle before scale to zero', integer)
    .option('--keep-alive', 'keep the service running (counts as usage)')
    .option('--no-keep-alive', 'let the service scale to zero')
    .option('--description <text>', 'a description')
    .option('--workspace <name>', 'the workspace the agent belongs to');
}

/** The request fields the options name (an option left out is not sent). */
export function agentFields(opts: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    agent_type: opts.type,
    runtime: opts.runtime,
    entrypoint: opts.entrypoint,
    memory_mb: opts.memory,
    idle_timeout_minutes: opts.idleTimeout,
    keep_alive: opts.keepAlive,
    description: opts.description,
    workspace_name: opts.workspace,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** Parses a whole number option. */
export function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('Not a whole number.');
  return n;
}

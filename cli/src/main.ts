/**
 * The `svc` program: global options, every command, and how an error ends it
 * (the contract's code and message on stderr, one exit code per kind of
 * failure; see `svc --help`).
 */
import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { createColors } from 'picocolors';
import { registerAgentCommands } from './commands/agents.js';
import { registerCollectionCommands } from './commands/collections.js';
import { registerCompletionCommand } from './commands/completion.js';
import { registerDeployCommand } from './commands/deploy.js';
import { registerDeploymentCommands } from './commands/deployments.js';
import { registerInitCommand } from './commands/init.js';
import { registerLoginCommands } from './commands/login.js';
import { registerLogsCommand } from './commands/logs.js';
import { registerRunCommands } from './commands/runs.js';
import { registerSecretCommands } from './commands/secrets.js';
import { registerWorkspaceCommands } from './commands/workspaces.js';
import { ApiError, EXIT, exitCodeOf } from './errors.js';
import { colourAllowed } from './output.js';

/** The version of the repository the CLI ships in (its root package.json). */
const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string })
  .version;

const EXIT_CODES_HELP = `
Configuration (first found wins): --api-url / --vectors-url, SVC_API_URL / SVC_VECTORS_URL /
SVC_API_KEY, the profile (--profile, SVC_PROFILE, else the current one from svc login), the
.dev/env of \`npm start\` in this directory or above, then http://127.0.0.1:8000 and :8001.

Exit codes: 0 ok, 1 failed (a deployment or run that failed), 2 usage, 3 auth (401/403),
4 not found (404), 5 refused (other 4xx), 6 unavailable (429/5xx after retries),
7 unreachable, 130 interrupted.

Examples:
  $ svc login < key.txt
  $ svc init --runtime python3.12
  $ svc deploy
  $ svc logs hello-py --follow
  $ svc completion bash >> ~/.bashrc
`;

/** The program with every command registered. */
export function buildProgram(): Command {
  const program = new Command('svc')
    .description(
      'The command-line client of the svc platform (agents, deploys, runs, logs, secrets, vectors).',
    )
    .version(VERSION)
    .option(
      '--api-url <url>',
      'the control plane (default from SVC_API_URL, the profile, .dev/env)',
    )
    .option('--vectors-url <url>', 'the vector plane (default from SVC_VECTORS_URL, ...)')
    .option('-p, --profile <name>', 'a profile stored by svc login')
    .option('--json', 'print answers as JSON (for scripts)')
    .option('--no-color', 'no colour even on a terminal')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', EXIT_CODES_HELP)
    .exitOverride();
  registerLoginCommands(program);
  registerInitCommand(program);
  registerAgentCommands(program);
  registerDeployCommand(program);
  registerDeploymentCommands(program);
  registerRunCommands(program);
  registerLogsCommand(program);
  registerSecretCommands(program);
  registerWorkspaceCommands(program);
  registerCollectionCommands(program);
  registerCompletionCommand(program);
  return program;
}

/** Runs `argv` (as process.argv) and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and --version end here too, with exit code 0.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const json = argv.includes('--json');
    const red = createColors(colourAllowed(process.stderr, !argv.includes('--no-color'))).red;
    if (err instanceof ApiError) {
      if (json)
        process.stderr.write(
          JSON.stringify({
            error: { status: err.status, code: err.code, message: err.message, ...err.details },
          }) + '\n',
        );
      else process.stderr.write(red(`Error ${err.status} ${err.code}: ${err.message}`) + '\n');
      const violations = err.details.violations;
      if (!json && Array.isArray(violations))
        for (const v of violations as { loc?: unknown[]; msg?: string }[])
          process.stderr.write(`  ${(v.loc ?? []).join('.')}: ${v.msg ?? ''}\n`);
    } else {
      const message = err instanceof Error ? err.message : String(err);
      if (json) process.stderr.write(JSON.stringify({ error: { message } }) + '\n');
      else process.stderr.write(red(`Error: ${message}`) + '\n');
    }
    return exitCodeOf(err);
  }
}

/**
 * `svc deploy [dir]`: packs the project (built-in exclusions and `.svcignore`),
 * uploads it with progress, creates the agent first when it does not exist,
 * and follows the deployment to `active` (printing the address) or `failed`
 * (printing the interpreter's message and exiting 1).
 */
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { packFiles } from '../../../common/code-archive.js';
import { contextOf, type Context } from '../context.js';
import { ApiError, CliError, EXIT } from '../errors.js';
import type { ApiClient } from '../http/api-client.js';
import { followDeployment, type DeploymentRecord } from '../deploy/follow-deployment.js';
import { listProjectFiles } from '../deploy/project-files.js';
import { readProjectSettings, type ProjectSettings } from '../deploy/svc-yaml.js';
import { formatBytes, uploadProgress } from '../deploy/upload-progress.js';
import { withExamples } from './help.js';

interface DeployOptions {
  agent?: string;
  dryRun?: boolean;
  follow: boolean;
  create: boolean;
  timeout?: string;
}

/** Adds `svc deploy` to `program`. */
export function registerDeployCommand(program: Command): void {
  withExamples(
    program
      .command('deploy [dir]')
      .summary('Pack, upload and follow a deploy of the project in dir')
      .description(
        'Pack the project in dir (default .) less .svcignore and the built-in exclusions (.git, .env, __pycache__, node_modules, venv, .DS_Store, *.log), upload it, and follow the deployment until it is active or failed.',
      )
      .option(
        '-a, --agent <agent>',
        'the agent (default: name in svc.yaml, else the directory name)',
      )
      .option('--dry-run', 'list what would be uploaded and what is excluded; upload nothing')
      .option('--no-follow', 'return once the upload is accepted')
      .option('--no-create', 'fail when the agent does not exist instead of creating it')
      .action(async (dir: string | undefined, opts: DeployOptions, cmd: Command) =>
        deploy(contextOf(cmd), resolve(dir ?? '.'), opts),
      ),
    [
      'svc deploy',
      'svc deploy examples/python-service --agent hello-py',
      'svc deploy --dry-run',
      'svc deploy --json | jq -r .agent.url',
    ],
  );
}

async function deploy(ctx: Context, dir: string, opts: DeployOptions): Promise<void> {
  const { out } = ctx;
  const settings = await readProjectSettings(dir);
  const agent = opts.agent ?? settings?.name ?? basename(dir);
  const files = await listProjectFiles(dir);
  if (files.included.length === 0) throw new CliError(`Nothing to upload in ${dir}.`);
  const archive = await packFiles(dir, files.included);

  if (opts.dryRun) {
    const summary = { agent, dir, archive_bytes: archive.length, ...files };
    out.result(summary, () => {
      out.line(
        `Would upload ${files.included.length} files (${formatBytes(archive.length)}) to ${agent}:`,
      );
      for (const path of files.included) out.line(`  ${path}`);
      out.line(`Excluded (${files.excluded.length}):`);
      for (const path of files.excluded) out.line(`  ${out.colors.dim(path)}`);
    });
    return;
  }
  if (!settings)
    out.note(
      out.errColors.yellow(`No svc.yaml in ${dir}: the agent's settings are used as they are.`),
    );

  const client = await ctx.control();
  await ensureAgent(ctx, client, agent, settings, opts.create);
  const progress = uploadProgress(out, archive.length);
  let accepted: DeploymentRecord;
  try {
    accepted = await client.request<DeploymentRecord>(
      'POST',
      `/api/v1/agents/${encodeURIComponent(agent)}/deploy`,
      { body: archive, contentType: 'application/gzip', onUploadProgress: progress.update },
    );
  } finally {
    progress.done();
  }
  out.note(
    `Deployment ${accepted.id} (version ${accepted.version}) of ${agent}: ${files.included.length} files, ${formatBytes(archive.length)}`,
  );
  const base = { agent_name: agent, archive_bytes: archive.length, files: files.included.length };
  if (!opts.follow) {
    out.result({ ...base, deployment: accepted }, () => out.line(accepted.id));
    return;
  }

  const settled = await followDeployment(client, out, accepted.id);
  const current = await settledAgent(client, agent, settled.state === 'active');
  out.result({ ...base, deployment: settled, agent: current }, () => undefined);
  if (settled.state !== 'active') {
    if (!out.json) out.error(settled.error_message ?? `The deployment ended ${settled.state}.`);
    throw new CliError(`Deployment ${settled.id} ${settled.state}.`, EXIT.failure);
  }
  if (!out.json) {
    out.ok(`Deployed ${agent} version ${settled.version}.`);
    out.line(
      typeof current.url === 'string'
        ? current.url
        : `${agent} (a job: run it with svc run ${agent})`,
    );
  }
}

/** How long an active service's address may lag behind its deployment (the agent's status is written after). */
const ADDRESS_WAIT_MS = 15_000;

/**
 * The agent after its deployment settled. The deployment turns active a
 * moment before the agent's status shows its address, so for an active
 * service this waits, briefly, for `url`.
 */
async function settledAgent(
  client: ApiClient,
  agent: string,
  active: boolean,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + ADDRESS_WAIT_MS;
  for (;;) {
    const current = await client.request<Record<string, unknown>>(
      'GET',
      `/api/v1/agents/${encodeURIComponent(agent)}`,
    );
    if (!active || current.agent_type !== 'service' || current.url || Date.now() > deadline)
      return current;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Creates the agent from svc.yaml's runtime and type when it does not exist (unless --no-create). */
async function ensureAgent(
  ctx: Context,
  client: ApiClient,
  agent: string,
  settings: ProjectSettings | null,
  create: boolean,
): Promise<void> {
  try {
    await client.request('GET', `/api/v1/agents/${encodeURIComponent(agent)}`);
    return;
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'AGENT_NOT_FOUND' || !create) throw err;
  }
  const fields: Record<string, unknown> = { name: agent };
  if (settings?.runtime) fields.runtime = settings.runtime;
  if (settings?.type) fields.agent_type = settings.type;
  await client.request('POST', '/api/v1/agents', { json: fields });
  ctx.out.note(`Created agent ${agent}.`);
}

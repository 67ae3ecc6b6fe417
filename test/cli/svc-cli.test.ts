/**
 * The `svc` binary, run as a child process against the real control plane
 * and the operator with the local driver (real Python agents; one platform
 * for the file): login and profiles, --json output, exit codes, deploy with
 * .svcignore (a large ignored file is neither uploaded nor in the build), a
 * failing deploy's interpreter message, cancelling a build in flight, run
 * payloads from stdin and from a file, secrets from stdin, and logs --follow
 * printing a line written after the follow started.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api } from '@kubernetes/client-node';
import { resourceChanges } from '../harness/wait.js';
import { outputOf, startCliPlatform, until, type CliPlatform } from './cli-platform.js';
import {
  SVC_BIN,
  runCommand,
  runSvc,
  runSvcOnTerminal,
  startSvc,
  type SvcOptions,
} from './run-svc.js';

// A deploy may wait for a Python build on a slow machine, then for its service.
jest.setTimeout(240_000);

const example = fileURLToPath(new URL('../../examples/python-service', import.meta.url));
const BIG_FILE_BYTES = 3 * 1024 * 1024;
let platform: CliPlatform;
let home: string;
let options: SvcOptions;

beforeAll(async () => {
  platform = await startCliPlatform();
  home = platform.home;
  options = {
    cwd: home,
    env: platform.env({ SVC_API_URL: platform.server.base, SVC_API_KEY: platform.owner.key }),
  };
}, 120_000);

afterAll(async () => {
  await platform?.stop();
});

/** A copy of examples/python-service with a large file that .svcignore leaves out. */
function projectWithLargeIgnoredFile(): string {
  const dir = join(home, `project-${randomBytes(3).toString('hex')}`);
  cpSync(example, dir, { recursive: true });
  mkdirSync(join(dir, 'data'));
  // Random bytes do not compress: uploaded, they would make the archive larger than they are.
  writeFileSync(join(dir, 'data', 'model.bin'), randomBytes(BIG_FILE_BYTES));
  writeFileSync(join(dir, '.svcignore'), 'data/model.bin\n');
  writeFileSync(join(dir, 'debug.log'), 'left out by the built-in *.log\n');
  return dir;
}

/**
 * A copy of examples/python-service whose build never ends by itself: its
 * requirements name a local package whose in-tree build backend (no build
 * dependencies to fetch) waits while pip, its parent, lives, for 5 minutes at most.
 */
function projectWithEndlessBuild(): string {
  const dir = join(home, `endless-${randomBytes(3).toString('hex')}`);
  cpSync(example, dir, { recursive: true });
  mkdirSync(join(dir, 'endless'));
  writeFileSync(join(dir, 'requirements.txt'), './endless\n');
  writeFileSync(
    join(dir, 'endless', 'pyproject.toml'),
    '[build-system]\nrequires = []\nbuild-backend = "endless_backend"\nbackend-path = ["."]\n',
  );
  writeFileSync(
    join(dir, 'endless', 'endless_backend.py'),
    [
      'import os, time',
      'def _wait(*_args, **_kwargs):',
      '    parent, deadline = os.getppid(), time.monotonic() + 300',
      '    while os.getppid() == parent and time.monotonic() < deadline:',
      '        time.sleep(0.2)',
      '    raise SystemExit("gave up waiting")',
      'get_requires_for_build_wheel = build_wheel = _wait',
      '',
    ].join('\n'),
  );
  return dir;
}

describe('configuration', () => {
  it('login checks the key read from stdin and stores it with mode 0600; whoami then uses it', async () => {
    const env = platform.env({ SVC_API_URL: platform.server.base });
    const login = await runSvc(['login', '--profile', 'test'], {
      ...options,
      env,
      input: `${platform.owner.key}\n`,
    });
    expect(login).toMatchObject({ code: 0 });
    const file = join(home, 'config', 'svc', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const whoami = await runSvc(['whoami', '--json'], { ...options, env: platform.env({}) });
    expect(whoami.code).toBe(0);
    const me = JSON.parse(whoami.stdout) as { profile: string; sources: Record<string, string> };
    expect(me.profile).toBe('test');
    expect(me.sources).toMatchObject({ apiUrl: 'profile', apiKey: 'profile' });
  });

  it('login refuses a key that does not resolve with exit code 3 and INVALID_API_KEY', async () => {
    const env = platform.env({ SVC_API_URL: platform.server.base });
    const login = await runSvc(['login', '--profile', 'bad'], {
      ...options,
      env,
      input: 'svc_live_doesnotresolve\n',
    });
    expect(login.code).toBe(3);
    expect(login.stderr).toContain('INVALID_API_KEY');
  });
});

describe('agents', () => {
  it('creates an agent and lists it as JSON that parses', async () => {
    const name = `cli-${randomBytes(3).toString('hex')}`;
    expect(await runSvc(['agents', 'create', name, '--type', 'job'], options)).toMatchObject({
      code: 0,
    });
    const list = await runSvc(['agents', 'list', '--json', '--limit', '100'], options);
    expect(list.code).toBe(0);
    const page = JSON.parse(list.stdout) as { items: { name: string; agent_type: string }[] };
    expect(page.items).toContainEqual(expect.objectContaining({ name, agent_type: 'job' }));
  });

  it('updates, renames and deletes an agent', async () => {
    const name = `cli-upd-${randomBytes(3).toString('hex')}`;
    expect((await runSvc(['agents', 'create', name], options)).code).toBe(0);
    const updated = await runSvc(
      ['agents', 'update', name, '--memory', '512', '--description', 'tuned', '--json'],
      options,
    );
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ memory_mb: 512, description: 'tuned' });
    const renamed = await runSvc(['agents', 'update', name, '--rename', `${name}-b`], options);
    expect(renamed.stdout).toMatch(new RegExp(`^name\\s+${name}-b$`, 'm'));
    const refused = await runSvc(['agents', 'update', `${name}-b`, '--memory', 'lots'], options);
    expect(refused.code).toBe(2);
    expect((await runSvc(['agents', 'delete', `${name}-b`], options)).code).toBe(0);
    expect((await runSvc(['agents', 'get', `${name}-b`], options)).code).toBe(4);
  });

  it('exits 4 with the contract code for an agent that does not exist', async () => {
    const result = await runSvc(['agents', 'get', 'no-such-agent-here'], options);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('AGENT_NOT_FOUND');
  });

  it('exits 2 on a usage error', async () => {
    expect((await runSvc(['agents', 'get'], options)).code).toBe(2);
  });

  it('ends quietly with its own exit code when the reader of its output has gone (| head)', async () => {
    // `true` exits before node has started, so every write meets a closed pipe.
    const script = `"${process.execPath}" "${SVC_BIN}" secrets set --help | true; echo "svc-exit=\${PIPESTATUS[0]}"`;
    const result = await runCommand('bash', ['-c', script], options);
    expect(result.stdout.trim()).toBe('svc-exit=0');
    expect(result.stderr).toBe('');
  });
});

describe('deploy', () => {
  const agent = `cli-py-${randomBytes(3).toString('hex')}`;

  it('--dry-run lists what .svcignore and the built-in exclusions leave out, uploading nothing', async () => {
    const dir = projectWithLargeIgnoredFile();
    const result = await runSvc(['deploy', dir, '--agent', agent, '--dry-run', '--json'], options);
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout) as { included: string[]; excluded: string[] };
    expect(plan.included).toEqual(['.svcignore', 'main.py', 'svc.yaml']);
    expect(plan.excluded).toEqual(['data/model.bin', 'debug.log']);
    const agents = await runSvc(['agents', 'get', agent], options);
    expect(agents.code).toBe(4);
  });

  it('creates the agent, uploads less than the ignored file, builds without it and ends active', async () => {
    const dir = projectWithLargeIgnoredFile();
    const result = await runSvc(['deploy', dir, '--agent', agent, '--json'], options);
    expect(result).toMatchObject({ code: 0 });
    const out = JSON.parse(result.stdout) as {
      archive_bytes: number;
      deployment: { id: string; state: string };
      agent: { name: string; url: string | null; status: string };
    };
    expect(out.archive_bytes).toBeLessThan(BIG_FILE_BYTES / 100);
    expect(out.deployment.state).toBe('active');
    expect(out.agent.url).toMatch(new RegExp(`^http://${agent}-[a-z0-9]{6}\\.agents\\.localtest`));
    expect(result.stderr).toContain(`Created agent ${agent}`);
    const app = join(platform.operator.dir, 'builds', out.deployment.id, 'app');
    expect(existsSync(join(app, 'main.py'))).toBe(true);
    expect(existsSync(join(app, 'data', 'model.bin'))).toBe(false);
    expect(existsSync(join(app, 'debug.log'))).toBe(false);
  });

  it('on a terminal shows an upload progress bar and colour; --no-color and a pipe have none', async () => {
    const { NO_COLOR: _unset, ...colourful } = options.env;
    const tty = await runSvcOnTerminal(['deploy', example, '--agent', agent], {
      ...options,
      env: colourful,
    });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/Uploading \[\u2588+\] 100% /);
    expect(tty.stdout).toContain('\x1b[32mDeployed'); // green
    const plain = await runSvcOnTerminal(['agents', 'list', '--no-color'], {
      ...options,
      env: colourful,
    });
    expect(plain.stdout).toContain(agent);
    expect(plain.stdout).not.toContain('\x1b[');
    const piped = await runSvc(['agents', 'list'], { ...options, env: colourful });
    expect(piped.stdout).toContain(agent);
    expect(piped.stdout + piped.stderr).not.toContain('\x1b[');
  });

  it('rolls back to version 1 as a new version and lists the deployments', async () => {
    const redeploy = await runSvc(['deploy', example, '--agent', agent, '--json'], options);
    expect(redeploy.code).toBe(0);
    const version = (JSON.parse(redeploy.stdout) as { deployment: { version: number } }).deployment
      .version;
    const rollback = await runSvc(['rollback', agent, '1', '--json'], options);
    expect(rollback.code).toBe(0);
    expect(JSON.parse(rollback.stdout)).toMatchObject({ version: version + 1, state: 'active' });
    const list = await runSvc(['deployments', 'list', agent, '--json'], options);
    const versions = (JSON.parse(list.stdout) as { items: { version: number; state: string }[] })
      .items;
    expect(versions.map((d) => d.version)).toEqual(
      Array.from({ length: version + 1 }, (_, i) => version + 1 - i),
    );
    expect(versions[0]!.state).toBe('active');
  });

  it('logs --follow prints a line the agent writes after the follow started', async () => {
    const marker = `marker-${randomUUID()}`;
    const follow = startSvc(['logs', agent, '--follow', '--poll-ms', '200'], options);
    let stdout = '';
    let stderr = '';
    follow.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    follow.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => follow.on('close', resolve));
    try {
      await until('the follow to start', () => stderr.includes('Following'), {
        timeoutMs: 30_000,
        wakeOn: outputOf(follow),
        lastSeen: () => ({ stdout, stderr }),
      });
      expect(stdout).not.toContain(marker);
      const run = await runSvc(
        ['run', agent, '--payload', JSON.stringify({ marker }), '--wait'],
        options,
      );
      expect(run).toMatchObject({ code: 0 });
      await until('the marker in the followed log', () => stdout.includes(marker), {
        timeoutMs: 60_000,
        wakeOn: outputOf(follow),
        lastSeen: () => ({ stdout, stderr }),
      });
      expect(stdout).toMatch(new RegExp(`INFO +run requested with .*${marker}`));
    } finally {
      follow.kill('SIGINT');
    }
    expect(await exited).toBe(130);
  });

  it('cancel of a version that already finished exits 5 with DEPLOYMENT_NOT_CANCELLABLE', async () => {
    const cancel = await runSvc(['cancel', agent, '1', '--reason', 'too late', '--json'], options);
    expect(cancel.code).toBe(5);
    const error = JSON.parse(cancel.stderr) as { error: Record<string, unknown> };
    expect(error.error).toMatchObject({ status: 409, code: 'DEPLOYMENT_NOT_CANCELLABLE' });
    expect(error.error.current_state).toEqual(expect.any(String));
  });

  it('run reads a payload from stdin and waits; logs filter by stream; bad JSON exits 2', async () => {
    const marker = `stdin-${randomUUID()}`;
    const run = await runSvc(['run', agent, '--payload-file', '-', '--wait', '--json'], {
      ...options,
      input: JSON.stringify({ marker }),
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ state: 'completed' });
    let logs: { items: { stream: string; message: string }[] } = { items: [] };
    await until(
      'the run line in the logs',
      () => logs.items.some((entry) => entry.message.includes(marker)),
      {
        timeoutMs: 30_000,
        // The logs route has no push: each check is a run of `svc logs`.
        everyMs: 500,
        refresh: async () => {
          const read = await runSvc(['logs', agent, '--stream', 'stdout', '--json'], options);
          logs = JSON.parse(read.stdout) as typeof logs;
        },
        lastSeen: () => logs.items.map((entry) => entry.message).slice(-5),
      },
    );
    expect(new Set(logs.items.map((entry) => entry.stream))).toEqual(new Set(['stdout']));
    const bad = await runSvc(['run', agent, '--payload', '{not json'], options);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not JSON');
  });

  it('run --payload-file reads the payload from a file', async () => {
    const marker = `file-${randomUUID()}`;
    const file = join(home, `payload-${randomBytes(3).toString('hex')}.json`);
    writeFileSync(file, JSON.stringify({ marker }));
    const run = await runSvc(['run', agent, '--payload-file', file, '--wait', '--json'], options);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ state: 'completed' });
    let messages: string[] = [];
    await until(
      'the payload in the logs',
      () => messages.some((message) => message.includes(marker)),
      {
        timeoutMs: 30_000,
        // The logs route has no push: each check is a run of `svc logs`.
        everyMs: 500,
        refresh: async () => {
          const read = await runSvc(['logs', agent, '--stream', 'stdout', '--json'], options);
          messages = (JSON.parse(read.stdout) as { items: { message: string }[] }).items.map(
            (entry) => entry.message,
          );
        },
        lastSeen: () => messages.slice(-5),
      },
    );
    expect(messages).toContainEqual(`run requested with ${JSON.stringify({ marker })}`);
  });

  it('cancel of a version still building exits 0 and the deployment fails as cancelled', async () => {
    const dir = projectWithEndlessBuild();
    const name = `${agent}-cancel`;
    const deploy = await runSvc(['deploy', dir, '--agent', name, '--no-follow', '--json'], options);
    expect(deploy.code).toBe(0);
    const id = (JSON.parse(deploy.stdout) as { deployment: { id: string } }).deployment.id;
    let state = '';
    await until('the build to start', () => state === 'building', {
      timeoutMs: 60_000,
      // The operator records the build's start on the AgentDeployment.
      wakeOn: resourceChanges(platform.server.kc, 'AgentDeployment', platform.owner.namespace),
      refresh: async () => {
        const read = await runSvc(['deployments', 'get', id, '--json'], options);
        state = (JSON.parse(read.stdout) as { state: string }).state;
      },
      lastSeen: () => state,
    });
    const cancel = await runSvc(
      ['cancel', name, '1', '--reason', 'wrong branch', '--json'],
      options,
    );
    expect(cancel.code).toBe(0);
    expect(JSON.parse(cancel.stdout)).toMatchObject({
      id,
      version: 1,
      cancellation_requested: true,
    });
    const after = await runSvc(['deployments', 'get', id, '--follow', '--json'], options);
    expect(after.code).toBe(1);
    expect(JSON.parse(after.stdout)).toMatchObject({
      id,
      state: 'failed',
      error_message: 'Cancelled: wrong branch',
    });
  });

  it('Ctrl-C while deploy follows exits 130 and leaves the deployment going on to active', async () => {
    const child = startSvc(['deploy', example, '--agent', `${agent}-ctrlc`], options);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await until('the upload to be accepted', () => /Deployment [0-9a-f-]{36}/.test(stderr), {
      timeoutMs: 60_000,
      wakeOn: outputOf(child),
      lastSeen: () => stderr,
    });
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const id = /Deployment ([0-9a-f-]{36})/.exec(stderr)![1]!;
    expect(stderr).toContain(`deployment ${id} goes on`);
    const after = await runSvc(['deployments', 'get', id, '--follow', '--json'], options);
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toMatchObject({ id, state: 'active' });
  });

  it('a deploy whose entry point does not import exits 1 with the interpreter message', async () => {
    const dir = join(home, 'broken');
    mkdirSync(dir);
    writeFileSync(join(dir, 'svc.yaml'), 'runtime: python3.11\ntype: service\n');
    writeFileSync(
      join(dir, 'main.py'),
      'import no_such_module_for_svc_cli\n\n\nasync def app(scope, receive, send):\n    pass\n',
    );
    const result = await runSvc(['deploy', dir, '--agent', `${agent}-broken`], options);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("No module named 'no_such_module_for_svc_cli'");
  });
});

// On an agent that is not deployed. On a running one each change rolls its local service, and
// the local driver now leaves the replaced services' processes running (they keep jest from
// exiting), a defect of the driver reported with this work; these tests of the CLI keep off it.
describe('secrets', () => {
  const holder = `cli-sec-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    expect((await runSvc(['agents', 'create', holder], options)).code).toBe(0);
  });

  it('secrets set reads the value from stdin, and list never shows it', async () => {
    const value = `v-${randomUUID()}`;
    const set = await runSvc(['secrets', 'set', holder, 'API_TOKEN'], {
      ...options,
      input: `${value}\n`,
    });
    expect(set).toMatchObject({ code: 0 });
    const list = await runSvc(['secrets', 'list', holder, '--json'], options);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain(value);
    expect(
      (JSON.parse(list.stdout) as { items: { key: string }[] }).items.map((s) => s.key),
    ).toEqual(['API_TOKEN']);
    const agentId = (
      JSON.parse((await runSvc(['agents', 'get', holder, '--json'], options)).stdout) as {
        id: string;
      }
    ).id;
    const secret = await platform.server.kc.makeApiClient(CoreV1Api).readNamespacedSecret({
      name: `svc-secrets-${agentId}`,
      namespace: platform.owner.namespace,
    });
    expect(Buffer.from(secret.data?.API_TOKEN ?? '', 'base64').toString()).toBe(value);
  });

  it('secrets set --from-env-file sets each pair, rotate reads stdin, rm removes the key', async () => {
    const agentId = (
      JSON.parse((await runSvc(['agents', 'get', holder, '--json'], options)).stdout) as {
        id: string;
      }
    ).id;
    const stored = async () =>
      (
        await platform.server.kc.makeApiClient(CoreV1Api).readNamespacedSecret({
          name: `svc-secrets-${agentId}`,
          namespace: platform.owner.namespace,
        })
      ).data ?? {};
    const decoded = (data: Record<string, string>, key: string) =>
      Buffer.from(data[key] ?? '', 'base64').toString();

    const envFile = join(home, 'prod.env');
    writeFileSync(
      envFile,
      "# production\nDB_URL=postgres://db/app\nexport GREETING='hello there'\n",
    );
    const fromFile = await runSvc(['secrets', 'set', holder, '--from-env-file', envFile], options);
    expect(fromFile).toMatchObject({ code: 0 });
    let data = await stored();
    expect(decoded(data, 'DB_URL')).toBe('postgres://db/app');
    expect(decoded(data, 'GREETING')).toBe('hello there');

    const rotated = `r-${randomUUID()}`;
    const rotate = await runSvc(['secrets', 'rotate', holder, 'DB_URL'], {
      ...options,
      input: rotated,
    });
    expect(rotate).toMatchObject({ code: 0 });
    expect(rotate.stdout + rotate.stderr).not.toContain(rotated);
    expect(decoded(await stored(), 'DB_URL')).toBe(rotated);

    expect((await runSvc(['secrets', 'rm', holder, 'GREETING'], options)).code).toBe(0);
    data = await stored();
    expect(Object.keys(data).sort()).toEqual(['API_TOKEN', 'DB_URL']);
    const missing = await runSvc(['secrets', 'rotate', holder, 'GREETING'], {
      ...options,
      input: 'x',
    });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('SECRET_NOT_FOUND');
  });

  it('secrets set without a value on stdin exits 2 and sets nothing', async () => {
    const result = await runSvc(['secrets', 'set', holder, 'EMPTY'], { ...options, input: '' });
    expect(result.code).toBe(2);
    const list = await runSvc(['secrets', 'list', holder, '--json'], options);
    const keys = (JSON.parse(list.stdout) as { items: { key: string }[] }).items.map((s) => s.key);
    expect(keys).not.toContain('EMPTY');
  });
});

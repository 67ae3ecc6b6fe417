/**
 * The `svc` binary beyond deploys, against the control plane, the local
 * operator and the vector plane (one platform for the file): the README's
 * CLI walkthrough run as written with `npx svc` from a folder laid out like a
 * clone with a `.dev/env`; workspaces; collections and regions on the vector
 * plane; `init`; the bash completion script, run in bash; profiles of two
 * accounts; `--api-url` over SVC_API_URL; `NO_COLOR`; and the level and time
 * filters of `logs`.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { renderEnv } from '../../common/env-file.js';
import { freePort } from '../../common/ports.js';
import { createCaller } from '../apiserver/control-plane-server.js';
import { ingest } from '../apiserver/logs/log-helpers.js';
import { startCliPlatform, type CliPlatform } from './cli-platform.js';
import { runSvc, runSvcOnTerminal, SVC_BIN, type SvcOptions } from './run-svc.js';

// The walkthrough deploys two agents and waits for two runs.
jest.setTimeout(300_000);

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
let platform: CliPlatform;
let options: SvcOptions;

beforeAll(async () => {
  platform = await startCliPlatform(true);
  options = {
    cwd: platform.home,
    env: platform.env({
      SVC_API_URL: platform.server.base,
      SVC_VECTORS_URL: platform.vectors!.base,
      SVC_API_KEY: platform.owner.key,
    }),
  };
}, 120_000);

afterAll(async () => {
  await platform?.stop();
});

/** The `sh` code blocks of the README section under `heading`. */
async function readmeBlocks(heading: string): Promise<string[]> {
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe("the README's CLI walkthrough", () => {
  it('runs as written with npx svc from a clone whose .dev/env names the platform', async () => {
    const [walkthrough] = await readmeBlocks('Your first agent, with the svc CLI');
    // A folder laid out like a clone: the root package naming the bin, its code, a .dev/env.
    const clone = join(platform.home, 'clone');
    mkdirSync(join(clone, '.dev'), { recursive: true });
    for (const link of ['cli', 'common', 'examples', 'node_modules'])
      symlinkSync(join(repoRoot, link), join(clone, link));
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    writeFileSync(
      join(clone, 'package.json'),
      JSON.stringify({ name: 'clone', private: true, type: 'module', bin: pkg.bin }),
    );
    writeFileSync(
      join(clone, '.dev', 'env'),
      renderEnv({ SVC_API_URL: platform.server.base, SVC_API_KEY: platform.owner.key }),
    );
    const { stdout, stderr } = await promisify(execFile)(
      'timeout',
      ['240', 'bash', '-e', '-c', walkthrough!],
      {
        cwd: clone,
        // What a login shell has, and a config folder of its own (no profile: .dev/env is used).
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          XDG_CONFIG_HOME: join(platform.home, 'readme-config'),
        },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    expect(stdout).toMatch(
      /sources\s+\{"apiUrl":".dev\/env","vectorsUrl":"default","apiKey":".dev\/env"\}/,
    );
    expect(stdout).toMatch(/^http:\/\/hello-py-[a-z0-9]{6}\.agents\.localtest/m);
    expect(stdout).toContain('Would upload 2 files');
    expect(stderr).toContain('Deployed hello-py version 1.');
    expect(stderr).toContain('Deployed tick version 1.');
    expect(stdout).toMatch(/state\s+completed/);
    expect(stdout).toMatch(/^hello-py\s+service\s+python3\.11\s+running/m);
    expect(stdout).toMatch(/^tick\s+job\s+python3\.11/m);
  });
});

describe('after the walkthrough', () => {
  it("pauses and resumes tick's schedule, idempotently, and lists its runs", async () => {
    const pause = await runSvc(['schedule', 'pause', 'tick', '--json'], options);
    expect(pause.code).toBe(0);
    expect(JSON.parse(pause.stdout)).toMatchObject({ cron_paused: true, changed: true });
    const again = await runSvc(['schedule', 'pause', 'tick', '--json'], options);
    expect(JSON.parse(again.stdout)).toMatchObject({ cron_paused: true, changed: false });
    const resume = await runSvc(['schedule', 'resume', 'tick', '--json'], options);
    expect(JSON.parse(resume.stdout)).toMatchObject({ cron_paused: false, changed: true });
    const runs = await runSvc(['runs', 'tick', '--json'], options);
    expect(JSON.parse(runs.stdout)).toMatchObject({
      // A cron run too when the clock passed a multiple of 5 minutes meanwhile.
      items: expect.arrayContaining([
        expect.objectContaining({ trigger_source: 'manual', state: 'completed' }),
      ]),
    });
  });

  it('stops and starts hello-py, archives and restores tick; a schedule on an agent without one is refused', async () => {
    const stop = await runSvc(['agents', 'stop', 'hello-py'], options);
    expect(stop).toMatchObject({ code: 0 });
    expect(stop.stderr).toContain('hello-py: paused');
    const start = await runSvc(['agents', 'start', 'hello-py', '--json'], options);
    expect(start.code).toBe(0);
    expect(JSON.parse(start.stdout)).toMatchObject({ name: 'hello-py', status: 'starting' });
    const archive = await runSvc(['agents', 'archive', 'tick'], options);
    expect(archive).toMatchObject({ code: 0 });
    expect(archive.stderr).toContain('tick: archiving');
    const restore = await runSvc(['agents', 'restore', 'tick'], options);
    expect(restore).toMatchObject({ code: 0 });
    expect(restore.stderr).toContain('tick: restoring');
    const noSchedule = await runSvc(['schedule', 'pause', 'hello-py'], options);
    expect(noSchedule.code).toBe(5);
    expect(noSchedule.stderr).toMatch(/Error 4\d\d SCHEDULE_NOT_SET/);
  });
});

describe('workspaces', () => {
  it('creates, lists, reads and deletes a workspace, as tables and as JSON', async () => {
    const name = `ws-${randomBytes(3).toString('hex')}`;
    const created = await runSvc(['workspaces', 'create', name, '--description', 'team'], options);
    expect(created).toMatchObject({ code: 0 });
    expect(created.stdout).toMatch(new RegExp(`^name\\s+${name}$`, 'm'));
    const list = await runSvc(['workspaces', 'list', '--json'], options);
    const page = JSON.parse(list.stdout) as { items: { name: string; description: string }[] };
    expect(page.items).toContainEqual(expect.objectContaining({ name, description: 'team' }));
    const agents = await runSvc(['workspaces', 'agents', name, '--json'], options);
    expect(JSON.parse(agents.stdout)).toMatchObject({ items: [], total: 0 });
    expect((await runSvc(['workspaces', 'delete', name], options)).code).toBe(0);
    const gone = await runSvc(['workspaces', 'get', name], options);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain('WORKSPACE_NOT_FOUND');
  });
});

describe('collections and regions (the vector plane)', () => {
  it('creates, lists, reads and deletes a collection', async () => {
    const name = `docs_${randomBytes(3).toString('hex')}`;
    const created = await runSvc(
      ['collections', 'create', name, '--size', '4', '--distance', 'dot'],
      options,
    );
    expect(created).toMatchObject({ code: 0 });
    const list = await runSvc(['collections', 'list'], options);
    expect(list.stdout).toMatch(new RegExp(`^${name}\\s+4\\s+Dot`, 'm'));
    const info = await runSvc(['collections', 'info', name, '--json'], options);
    expect(JSON.parse(info.stdout)).toMatchObject({
      result: { name, vectors: { size: 4, distance: 'Dot' } },
    });
    expect((await runSvc(['collections', 'delete', name], options)).code).toBe(0);
    const gone = await runSvc(['collections', 'info', name], options);
    expect(gone.code).toBe(4);
  });

  it('a collection of another size under the same name is refused with exit code 5', async () => {
    const name = `taken_${randomBytes(3).toString('hex')}`;
    expect((await runSvc(['collections', 'create', name, '--size', '4'], options)).code).toBe(0);
    const again = await runSvc(['collections', 'create', name, '--size', '8'], options);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('COLLECTION_NAME_TAKEN');
  });

  it('lists the regions', async () => {
    const regions = await runSvc(['regions', '--json'], options);
    expect(regions.code).toBe(0);
    expect(Object.keys((JSON.parse(regions.stdout) as { result: object }).result)).toContain(
      'local',
    );
  });
});

describe('init', () => {
  it('writes svc.yaml and .svcignore that deploy then reads, and refuses to overwrite them', async () => {
    const dir = join(platform.home, 'My App');
    mkdirSync(dir);
    writeFileSync(join(dir, 'main.py'), 'async def app(scope, receive, send):\n    pass\n');
    expect((await runSvc(['init', dir, '--runtime', 'python3.12'], options)).code).toBe(0);
    expect(readFileSync(join(dir, 'svc.yaml'), 'utf8')).toBe(
      'name: my-app\nruntime: python3.12\ntype: service\nentrypoint: main.py\n',
    );
    const plan = await runSvc(['deploy', dir, '--dry-run', '--json'], options);
    expect(JSON.parse(plan.stdout)).toMatchObject({
      agent: 'my-app',
      included: ['.svcignore', 'main.py', 'svc.yaml'],
    });
    const again = await runSvc(['init', dir], options);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('--force');
  });
});

describe('completion', () => {
  it("completes commands, subcommands and options in bash from the program's own tree", async () => {
    const script = (await runSvc(['completion', 'bash'], options)).stdout;
    const complete = async (line: string) => {
      const words = line.split(' ');
      const { stdout } = await promisify(execFile)('bash', [
        '-c',
        `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _svc_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ]);
      return stdout.trim().split('\n');
    };
    expect(await complete('svc ag')).toEqual(['agents']);
    expect(await complete('svc agents ')).toEqual(
      expect.arrayContaining(['list', 'create', 'delete', 'status']),
    );
    expect(await complete('svc --json deploy --d')).toEqual(['--dry-run']);
    expect(await complete('svc secrets set -')).toEqual(
      expect.arrayContaining(['--workspace', '--from-env-file']),
    );
  });

  it('runs --version through the binary the package names', async () => {
    const { code, stdout } = await runSvc(['--version'], options);
    expect(code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(stdout.trim()).toBe(pkg.version);
    expect(SVC_BIN.endsWith(join('cli', 'bin', 'svc.mjs'))).toBe(true);
  });
});

describe('profiles', () => {
  it('login stores a profile per account; profiles use switches whoami; logout forgets the key', async () => {
    const second = await createCaller(platform.server, { tier: 'enterprise' });
    const config = join(platform.home, 'profiles-config');
    const file = join(config, 'svc', 'config.json');
    // No SVC_API_KEY: the key comes from stdin at login, from the profile afterwards.
    const env = platform.env({ XDG_CONFIG_HOME: config });
    const svc = (args: string[], input?: string) =>
      runSvc(args, { cwd: platform.home, env, ...(input === undefined ? {} : { input }) });
    const account = async () => {
      const whoami = await svc(['whoami', '--json']);
      expect(whoami.code).toBe(0);
      return JSON.parse(whoami.stdout) as { id: string; profile: string };
    };

    const url = ['--api-url', platform.server.base];
    expect((await svc([...url, 'login', '--profile', 'a'], `${platform.owner.key}\n`)).code).toBe(
      0,
    );
    expect((await svc([...url, 'login', '--profile', 'b'], `${second.key}\n`)).code).toBe(0);
    const list = await svc(['profiles', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ current: '', name: 'a', api_url: platform.server.base }),
      expect.objectContaining({ current: '*', name: 'b', api_url: platform.server.base }),
    ]);

    expect((await svc(['profiles', 'use', 'a'])).code).toBe(0);
    expect(await account()).toMatchObject({ id: platform.owner.accountId, profile: 'a' });
    expect((await svc(['profiles', 'use', 'b'])).code).toBe(0);
    expect(await account()).toMatchObject({ id: second.accountId, profile: 'b' });

    expect((await svc(['logout'])).code).toBe(0);
    const stored = readFileSync(file, 'utf8');
    expect(stored).not.toContain(second.key);
    expect(stored).toContain(platform.owner.key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await account()).toMatchObject({ id: platform.owner.accountId, profile: 'a' });
  });
});

describe('--api-url', () => {
  it('on the command line wins over SVC_API_URL, whichever of the two is reachable', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const reached = await runSvc(['--api-url', platform.server.base, 'whoami', '--json'], {
      ...options,
      env: { ...options.env, SVC_API_URL: closed },
    });
    expect(reached.code).toBe(0);
    expect(JSON.parse(reached.stdout)).toMatchObject({
      id: platform.owner.accountId,
      api_url: platform.server.base,
      sources: { apiUrl: 'option' },
    });
    const unreachable = await runSvc(['--api-url', closed, 'whoami'], options);
    expect(unreachable.code).toBe(7);
  });
});

describe('colour', () => {
  it('an error on a terminal is red, and has no colour when NO_COLOR is set', async () => {
    const { NO_COLOR: _unset, ...colourful } = options.env;
    const args = ['agents', 'get', 'no-such-agent-here'];
    const red = await runSvcOnTerminal(args, { ...options, env: colourful });
    expect(red.code).toBe(4);
    expect(red.stdout).toContain('\x1b[31mError 404 AGENT_NOT_FOUND');
    const plain = await runSvcOnTerminal(args, {
      ...options,
      env: { ...colourful, NO_COLOR: '1' },
    });
    expect(plain.code).toBe(4);
    expect(plain.stdout).toContain('Error 404 AGENT_NOT_FOUND');
    expect(plain.stdout).not.toContain('\x1b[');
    // A record's field names are dim on a terminal; not under NO_COLOR.
    const record = await runSvcOnTerminal(['whoami'], {
      ...options,
      env: { ...colourful, NO_COLOR: '1' },
    });
    expect(record.stdout).toContain(platform.owner.accountId);
    expect(record.stdout).not.toContain('\x1b[');
  });
});

describe('logs filters', () => {
  type Page = { items: { message: string; level: string }[] };

  it('--level leaves out lines of other levels and --since lines older than it', async () => {
    const name = `logs-${randomBytes(3).toString('hex')}`;
    const created = await runSvc(['agents', 'create', name, '--json'], options);
    expect(created.code).toBe(0);
    const agentId = (JSON.parse(created.stdout) as { id: string }).id;
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const shipped = await ingest(platform.server, agentId, platform.owner.accountId, [
      { stream: 'stdout', message: 'INFO old news', timestamp: hourAgo },
      { stream: 'stdout', message: 'INFO fresh news' },
      { stream: 'stderr', message: 'WARNING:root:careful' },
      { stream: 'stdout', message: 'ERROR broke' },
    ]);
    expect(shipped.status).toBe(204);
    const messages = async (...filters: string[]) => {
      const read = await runSvc(['logs', name, ...filters, '--json'], options);
      expect(read.code).toBe(0);
      return (JSON.parse(read.stdout) as Page).items.map((entry) => entry.message).sort();
    };

    expect(await messages()).toEqual([
      'ERROR broke',
      'INFO fresh news',
      'INFO old news',
      'WARNING:root:careful',
    ]);
    expect(await messages('--level', 'WARN,ERROR')).toEqual([
      'ERROR broke',
      'WARNING:root:careful',
    ]);
    expect(await messages('--level', 'INFO')).toEqual(['INFO fresh news', 'INFO old news']);
    const fresh = ['ERROR broke', 'INFO fresh news', 'WARNING:root:careful'];
    expect(await messages('--since', '10m')).toEqual(fresh);
    const halfHourAgo = new Date(Date.now() - 1_800_000).toISOString();
    expect(await messages('--since', halfHourAgo)).toEqual(fresh);
    expect(await messages('--level', 'INFO', '--since', '10m')).toEqual(['INFO fresh news']);

    const human = await runSvc(['logs', name, '--level', 'ERROR'], options);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/ERROR +ERROR broke/);
    expect(human.stdout).not.toContain('news');
    expect(human.stdout).not.toContain('careful');
  });
});

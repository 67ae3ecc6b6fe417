/**
 * The Node runner (operator/runners/node/runner.mjs) as the local driver runs it, under Node and
 * under Bun (the `bun` runtime, .tools/bun from hack/bun.mjs): a real process per app, real
 * HTTP, one test per app shape the contract accepts.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  RUNNERS,
  runnerCommand,
  type Listen,
} from '../../operator/src/drivers/local/runner-command.js';
import { writeModuleBoundary } from '../../operator/src/drivers/local/state-files.js';
import {
  exitWithoutHealth,
  firstWebSocketMessage,
  freePort,
  makeAppDir,
  removeAppDirs,
  repoRoot,
  startRunner,
  stopRunner,
  waitForHealth,
} from './runner-process.js';
import { getOverSocket, leaveStaleSocket, socketPath, waitForSocketHealth } from './unix-socket.js';

/** The runner under Node (every node* runtime starts it alike) and under Bun. */
const RUNTIMES = ['node22', 'bun'] as const;
type RunnerRuntime = (typeof RUNTIMES)[number];

/** Starts the runner exactly as the local driver does: its command, cwd = the app directory. */
function startNodeRunner(
  runtime: RunnerRuntime,
  mode: 'serve' | 'run' | 'check',
  dir: string,
  entrypoint: string,
  listen?: Listen,
) {
  const { command, args, env } = runnerCommand(RUNNERS, runtime, mode, dir, entrypoint, listen);
  return startRunner(command, args, {
    cwd: dir,
    env: { ...process.env, ...env, SVC_RUNNER_ERROR_FILE: join(dir, 'error.txt') },
  });
}

/** Serves `dir` on a free loopback port; `errorFile` is the SVC_RUNNER_ERROR_FILE it gets. */
async function serve(runtime: RunnerRuntime, dir: string, entrypoint: string) {
  const port = await freePort();
  return {
    runner: startNodeRunner(runtime, 'serve', dir, entrypoint, { port }),
    baseUrl: `http://127.0.0.1:${port}`,
    errorFile: join(dir, 'error.txt'),
  };
}

/** Serves the app, runs `check` against it, and expects a clean exit 0 on SIGTERM. */
async function whileServing(
  runtime: RunnerRuntime,
  dir: string,
  entrypoint: string,
  check: (baseUrl: string) => Promise<void>,
): Promise<void> {
  const { runner, baseUrl } = await serve(runtime, dir, entrypoint);
  try {
    await waitForHealth(runner, baseUrl);
    await check(baseUrl);
  } finally {
    expect(await stopRunner(runner)).toEqual({ code: 0, signal: null });
  }
}

async function expectRunnerHealth(baseUrl: string): Promise<void> {
  const health = await fetch(`${baseUrl}/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toEqual({ status: 'ok' });
}

afterAll(removeAppDirs);

describe.each(RUNTIMES)('the runner under %s', (runtime) => {
  describe('serve', () => {
    it('serves a CommonJS request listener with its node_modules, never running its main block', async () => {
      const dir = await makeAppDir({
        'node_modules/some-local-pkg/index.js':
          "module.exports = { greeting: 'hello from a dep' };",
        'index.js': `
const { writeFileSync } = require('node:fs');
const { greeting } = require('some-local-pkg');
function app(req, res) {
  if (req.url === '/health') {
    res.writeHead(503).end('the app must not see /health');
    return;
  }
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ url: req.url, greeting }));
}
module.exports = { app };
if (require.main === module) writeFileSync('main-block-ran', 'yes');
`,
      });
      await whileServing(runtime, dir, 'index.js', async (baseUrl) => {
        const response = await fetch(`${baseUrl}/items?id=1`);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ url: '/items?id=1', greeting: 'hello from a dep' });
        await expectRunnerHealth(baseUrl);
      });
      expect(existsSync(join(dir, 'main-block-ran'))).toBe(false);
    });

    it('serves on the Unix socket --socket names, in place of a stale socket file left there', async () => {
      const dir = await makeAppDir({
        'index.js': 'module.exports = { app: (req, res) => res.end(`at ${req.url}`) };',
      });
      const socket = await socketPath();
      leaveStaleSocket(socket);
      const runner = startNodeRunner(runtime, 'serve', dir, 'index.js', { socket });
      try {
        await waitForSocketHealth(runner, socket);
        expect(await getOverSocket(socket, '/over-unix')).toEqual({
          status: 200,
          body: 'at /over-unix',
        });
      } finally {
        expect(await stopRunner(runner)).toEqual({ code: 0, signal: null });
      }
    });

    it('serves a Koa app and answers /health before its own route', async () => {
      const dir = await makeAppDir({
        'app.cjs': `
const Koa = require('koa');
const app = new Koa();
app.use((ctx) => {
  ctx.body = ctx.path === '/health' ? { status: 'from koa' } : { koa: ctx.path };
});
module.exports.app = app;
`,
      });
      // As an installed dependency would be; koa's own dependencies resolve from its real path.
      await mkdir(join(dir, 'node_modules'));
      await symlink(join(repoRoot, 'node_modules', 'koa'), join(dir, 'node_modules', 'koa'), 'dir');
      await whileServing(runtime, dir, 'app.cjs', async (baseUrl) => {
        const response = await fetch(`${baseUrl}/hello`);
        expect(await response.json()).toEqual({ koa: '/hello' });
        await expectRunnerHealth(baseUrl);
      });
    });

    it('serves a fetch-style app, streaming the request body in and the response out', async () => {
      const dir = await makeAppDir({
        'server.mjs': `
export default {
  async fetch(request) {
    const url = new URL(request.url);
    const body = request.body ? await request.text() : null;
    const headers = new Headers({ 'content-type': 'application/json' });
    headers.append('set-cookie', 'a=1');
    headers.append('set-cookie', 'b=2');
    const payload = { method: request.method, path: url.pathname + url.search, body };
    return new Response(JSON.stringify(payload), { status: 201, headers });
  },
};
`,
      });
      await whileServing(runtime, dir, 'server.mjs', async (baseUrl) => {
        const response = await fetch(`${baseUrl}/echo?x=1`, { method: 'POST', body: 'ping' });
        expect(response.status).toBe(201);
        expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
        expect(await response.json()).toEqual({ method: 'POST', path: '/echo?x=1', body: 'ping' });
        await expectRunnerHealth(baseUrl);
      });
    });

    it('serves an ES module default export under "type": "module", not as the main module', async () => {
      const dir = await makeAppDir({
        'package.json': JSON.stringify({ type: 'module' }),
        'src/server.js': `
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
export default function app(req, res) {
  res.end('esm ' + req.method);
}
// Node's idiom, and Bun's (import.meta.main; Node 24 has it too).
if (import.meta.url === pathToFileURL(process.argv[1]).href || import.meta.main) {
  writeFileSync('main-block-ran', 'yes');
}
`,
      });
      await whileServing(runtime, dir, 'src/server.js', async (baseUrl) => {
        expect(await (await fetch(`${baseUrl}/`)).text()).toBe('esm GET');
      });
      expect(existsSync(join(dir, 'main-block-ran'))).toBe(false);
    });

    it('serves a TypeScript entry point (through tsx under Node, compiled by Bun itself)', async () => {
      const dir = await makeAppDir({
        'main.ts': `
import type { IncomingMessage, ServerResponse } from 'node:http';
interface Reply { language: string; url: string }
export const app = (req: IncomingMessage, res: ServerResponse): void => {
  const reply: Reply = { language: 'typescript', url: req.url ?? '' };
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(reply));
};
`,
      });
      await whileServing(runtime, dir, 'main.ts', async (baseUrl) => {
        const response = await fetch(`${baseUrl}/ts`);
        expect(await response.json()).toEqual({ language: 'typescript', url: '/ts' });
      });
    });

    it('hands WebSocket upgrades to app.upgrade and refuses them (426) for a plain listener', async () => {
      const dir = await makeAppDir({
        'upgrading.cjs': `
const { createHash } = require('node:crypto');
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
module.exports.app = {
  fetch: () => new Response('plain http'),
  // A minimal server handshake and one unmasked text frame, enough for a client to read.
  upgrade(req, socket) {
    const key = req.headers['sec-websocket-key'];
    const accept = createHash('sha1').update(key + GUID).digest('base64');
    socket.write('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\n' +
      'Connection: Upgrade\\r\\nSec-WebSocket-Accept: ' + accept + '\\r\\n\\r\\n');
    const text = Buffer.from('upgraded ' + req.url);
    socket.write(Buffer.concat([Buffer.from([0x81, text.length]), text]));
  },
};
`,
        'listener.cjs': "module.exports.app = (req, res) => res.end('plain');",
      });
      await whileServing(runtime, dir, 'upgrading.cjs', async (baseUrl) => {
        const wsUrl = `${baseUrl.replace('http', 'ws')}/socket`;
        expect(await firstWebSocketMessage(wsUrl)).toBe('upgraded /socket');
        expect(await (await fetch(baseUrl)).text()).toBe('plain http');
      });
      await whileServing(runtime, dir, 'listener.cjs', async (baseUrl) => {
        const wsUrl = `${baseUrl.replace('http', 'ws')}/socket`;
        await expect(firstWebSocketMessage(wsUrl)).rejects.toThrow(
          'Unexpected server response: 426',
        );
      });
    });

    it('finishes an in-flight response on SIGTERM, then exits 0', async () => {
      const dir = await makeAppDir({
        'slow.cjs': `
module.exports.app = (req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.write('started ');
  setTimeout(() => res.end('finished'), 300);
};
`,
      });
      const { runner, baseUrl } = await serve(runtime, dir, 'slow.cjs');
      await waitForHealth(runner, baseUrl);
      // Headers are in, so the request is in flight when the signal arrives.
      const response = await fetch(`${baseUrl}/slow`);
      runner.child.kill('SIGTERM');
      expect(await response.text()).toBe('started finished');
      expect(await runner.exited).toEqual({ code: 0, signal: null });
    });

    it('exits 3 without ever being healthy when the entry point fails to load', async () => {
      // `nope` is on the registry: Bun's auto-install, if it were on, would fetch it and serve.
      const dir = await makeAppDir({
        'index.js': "require('nope');\nmodule.exports = { app: (req, res) => res.end() };\n",
      });
      const { runner, baseUrl, errorFile } = await serve(runtime, dir, 'index.js');
      const { exit, everHealthy } = await exitWithoutHealth(runner, baseUrl);
      expect(exit).toEqual({ code: 3, signal: null });
      expect(everHealthy).toBe(false);
      // Each interpreter's own words: Bun names its resolution errors ResolveMessage.
      const reason = `${runtime === 'bun' ? 'ResolveMessage' : 'Error'}: Cannot find module 'nope'`;
      expect(runner.stderr()).toContain(reason);
      expect(runner.stderr()).toContain(join(dir, 'index.js'));
      expect(await readFile(errorFile, 'utf8')).toBe(`${reason}\n`);
    });

    it('names the file, relative to the code, and the line of a syntax error in the reason', async () => {
      const dir = await makeAppDir({
        'index.js': "module.exports = require('./lib/app.js');\n",
        'lib/app.js': 'const a = 1;\nconst app = 2 +* 3;\nmodule.exports = { app };\n',
      });
      const { runner, baseUrl, errorFile } = await serve(runtime, dir, 'index.js');
      const { exit } = await exitWithoutHealth(runner, baseUrl);
      expect(exit.code).toBe(3);
      // Bun names its parse errors BuildMessage.
      expect(await readFile(errorFile, 'utf8')).toMatch(
        /^(SyntaxError|BuildMessage): .+ \(lib\/app\.js, line 2\)\n$/,
      );
    });

    it('exits 3 with the contract message when the entry point exports no app', async () => {
      const dir = await makeAppDir({ 'index.mjs': 'export const handler = () => {};\n' });
      const { runner, baseUrl, errorFile } = await serve(runtime, dir, 'index.mjs');
      const { exit, everHealthy } = await exitWithoutHealth(runner, baseUrl);
      const message = 'The entry point index.mjs does not export `app` (an HTTP application).';
      expect(exit.code).toBe(3);
      expect(everHealthy).toBe(false);
      expect(runner.stderr()).toContain(message);
      expect(await readFile(errorFile, 'utf8')).toBe(`${message}\n`);
    });

    it('exits 3 when app is not an HTTP application', async () => {
      const dir = await makeAppDir({ 'index.mjs': "export const app = { name: 'not an app' };\n" });
      const { runner, baseUrl, errorFile } = await serve(runtime, dir, 'index.mjs');
      const { exit } = await exitWithoutHealth(runner, baseUrl);
      expect(exit.code).toBe(3);
      expect(await readFile(errorFile, 'utf8')).toMatch(
        /^`app` in index.mjs is not an HTTP application/,
      );
    });
  });

  describe('check', () => {
    async function check(files: Record<string, string>, entrypoint: string) {
      const dir = await makeAppDir(files);
      const runner = startNodeRunner(runtime, 'check', dir, entrypoint);
      const exit = await runner.exited;
      const errorFile = join(dir, 'error.txt');
      const reason = existsSync(errorFile) ? await readFile(errorFile, 'utf8') : null;
      return { exit, reason, stdout: runner.stdout() };
    }
    /** A syntax error on line 2 that every parser places there. */
    const BROKEN = 'const a = 1;\nconst b = 2 +* 3;\nconst c = 4;\n';

    it('parses the entry point without running it', async () => {
      for (const [entrypoint, source] of [
        ['job.js', "console.log('ran');\nrequire('nothing-installed');\n"],
        ['job.mjs', "import 'nothing-installed';\nconsole.log('ran');\n"],
        // ES module syntax in a .js file with no package.json: Node loads it as an ES module.
        ['esm.js', "import fs from 'node:fs';\nexport const app = fs;\n"],
        ['job.ts', "const n: number = 1;\nconsole.log('ran', n);\n"],
      ]) {
        const { exit, reason, stdout } = await check(
          { [entrypoint as string]: source as string },
          entrypoint as string,
        );
        expect([entrypoint, exit, reason, stdout]).toEqual([
          entrypoint,
          { code: 0, signal: null },
          null,
          '',
        ]);
      }
    });

    it.each(['job.js', 'job.cjs', 'job.mjs', 'job.ts', 'jobs/nightly.js'])(
      'exits 3 with the message, file and line of a syntax error in %s',
      async (entrypoint) => {
        const source =
          entrypoint === 'job.ts' ? BROKEN.replace('const a', 'const a: number') : BROKEN;
        const { exit, reason } = await check({ [entrypoint]: source }, entrypoint);
        expect(exit.code).toBe(3);
        expect(reason).toMatch(
          new RegExp(`^SyntaxError: .+ \\(${entrypoint.replace('.', '\\.')}, line 2\\)\n$`),
        );
      },
    );
  });

  describe('run', () => {
    async function run(entrypoint: string, source: string) {
      const dir = await makeAppDir({ [entrypoint]: source });
      const runner = startNodeRunner(runtime, 'run', dir, entrypoint);
      const exit = await runner.exited;
      const errorFile = join(dir, 'error.txt');
      return { exit, errorFile, stdout: runner.stdout(), stderr: runner.stderr() };
    }

    it('runs a CommonJS script as the main module and exits 0', async () => {
      const { exit, stdout } = await run(
        'job.js',
        "console.log('main:', require.main === module);\n",
      );
      expect(exit).toEqual({ code: 0, signal: null });
      expect(stdout).toBe('main: true\n');
    });

    it("exits with the script's process.exitCode or process.exit code", async () => {
      expect((await run('job.cjs', 'process.exitCode = 7;\n')).exit.code).toBe(7);
      expect((await run('job.mjs', 'setTimeout(() => process.exit(7), 5);\n')).exit.code).toBe(7);
      expect(
        (await run('job.ts', 'const code: number = 7;\nprocess.exitCode = code;\n')).exit.code,
      ).toBe(7);
    });

    it('exits 1 with the stack on an uncaught error', async () => {
      const { exit, stderr, errorFile } = await run(
        'job.mjs',
        "function fail() {\n  throw new TypeError('bad input');\n}\nawait Promise.resolve();\nfail();\n",
      );
      expect(exit.code).toBe(1);
      expect(stderr).toContain('TypeError: bad input');
      // Node prints file URLs, Bun paths (relative to the working directory).
      expect(stderr).toMatch(/at fail \((file:\/\/)?.*job\.mjs:2:\d+\)/);
      expect(await readFile(errorFile, 'utf8')).toBe('TypeError: bad input\n');
    });
  });
});

describe('the runner under bun, as Bun', () => {
  it("serves an app that uses Bun's own APIs", async () => {
    const dir = await makeAppDir({
      'index.ts': 'export default { fetch: () => Response.json({ bun: Bun.version }) };\n',
    });
    await whileServing('bun', dir, 'index.ts', async (baseUrl) => {
      const response = await fetch(`${baseUrl}/`);
      expect(await response.json()).toEqual({ bun: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    });
  });

  it('runs an ES module job as the main module (import.meta.main)', async () => {
    const dir = await makeAppDir({ 'job.ts': 'console.log(`main: ${import.meta.main}`);\n' });
    const runner = startNodeRunner('bun', 'run', dir, 'job.ts');
    expect(await runner.exited).toEqual({ code: 0, signal: null });
    expect(runner.stdout()).toBe('main: true\n');
  });
});

describe('the module type of an agent built by the local driver', () => {
  it("comes from the agent's own files even in a state directory inside a package of type module", async () => {
    // A checkout of this repository: its package.json says "type": "module".
    const checkout = await makeAppDir({ 'package.json': JSON.stringify({ type: 'module' }) });
    const builds = join(checkout, '.dev', 'operator', 'builds');
    const appDir = join(builds, 'd1', 'app');
    await mkdir(appDir, { recursive: true });
    await writeFile(
      join(appDir, 'index.js'),
      "module.exports = { app: (req, res) => res.end('cjs:' + typeof require) };\n",
    );
    await writeFile(join(appDir, 'job.js'), "console.log('job exports', typeof module.exports);\n");
    // What the checkout's package.json would do to it, were nothing in between.
    const unbounded = startNodeRunner('node22', 'run', appDir, 'job.js');
    expect((await unbounded.exited).code).toBe(1);
    expect(unbounded.stderr()).toContain('module is not defined in ES module scope');

    await writeModuleBoundary(builds);
    const job = startNodeRunner('node22', 'run', appDir, 'job.js');
    expect(await job.exited).toEqual({ code: 0, signal: null });
    expect(job.stdout()).toBe('job exports object\n');
    await whileServing('node22', appDir, 'index.js', async (baseUrl) => {
      expect(await (await fetch(`${baseUrl}/`)).text()).toBe('cjs:function');
    });
  });
});

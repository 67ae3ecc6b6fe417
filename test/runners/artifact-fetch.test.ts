/**
 * The runners' own fetch of an agent's built code (operator/runners/python/svc_runner/fetch.py,
 * operator/runners/node/fetch.mjs), as a cluster pod starts them: an empty app directory and
 * SVC_ARTIFACT_URL naming the artifact, here served by a local HTTP server from what the build
 * step packs (operator/builder/pack.ts). The code arrives (long paths and modes included)
 * through the API server's 503s, the URL is gone from the agent's environment, a second start
 * does not fetch again, and an archive entry that would leave the directory stops the runner.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { pack } from 'tar-stream';
import { packDirectory } from '../../operator/builder/pack.js';
import { RUNNERS, runnerCommand } from '../../operator/src/drivers/local/runner-command.js';
import {
  exitWithoutHealth,
  freePort,
  makeAppDir,
  removeAppDirs,
  startRunner,
  stopRunner,
  waitForHealth,
} from './runner-process.js';

/** A directory name long enough that tar needs its prefix field or a pax header for it. */
const DEEP = `${'a-long-directory-name/'.repeat(8)}leaf`;

const APPS = {
  'python3.11': {
    'main.py': [
      'import os, pathlib',
      'async def app(scope, receive, send):',
      '    if scope["type"] != "http":',
      '        return',
      `    deep = pathlib.Path("${DEEP}/data.txt").read_text()`,
      "    body = f\"{deep}|{os.environ.get('SVC_ARTIFACT_URL', 'none')}\".encode()",
      '    await send({"type": "http.response.start", "status": 200, "headers": []})',
      '    await send({"type": "http.response.body", "body": body})',
      '',
    ].join('\n'),
  },
  node22: {
    'server.mjs': [
      "import { readFileSync } from 'node:fs';",
      'export default { fetch() {',
      `  const deep = readFileSync('${DEEP}/data.txt', 'utf8');`,
      "  return new Response(`${deep}|${process.env.SVC_ARTIFACT_URL ?? 'none'}`);",
      '} };',
      '',
    ].join('\n'),
  },
} as const;
type Runtime = 'python3.11' | 'node22' | 'bun';
const entrypointOf = (runtime: Runtime) => (runtime === 'python3.11' ? 'main.py' : 'server.mjs');
const filesOf = (runtime: Runtime) => APPS[runtime === 'bun' ? 'node22' : runtime];

let server: Server;
let base: string;
/** Archives by path, and how many 503s each answers first. */
const archives = new Map<string, { body: Buffer; unavailable: number; requests: number }>();

async function gzipOf(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const archive = archives.get(req.url ?? '');
    if (!archive) return void res.writeHead(404).end();
    archive.requests++;
    if (archive.unavailable-- > 0) return void res.writeHead(503).end();
    res.writeHead(200, { 'content-type': 'application/gzip' }).end(archive.body);
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  base = `http://127.0.0.1:${port}`;
  for (const runtime of ['python3.11', 'node22'] as const) {
    const dir = await makeAppDir({ ...filesOf(runtime), [`${DEEP}/data.txt`]: `deep ${runtime}` });
    archives.set(`/${runtime}`, {
      body: await gzipOf(packDirectory(dir)),
      unavailable: 2,
      requests: 0,
    });
  }
  // An archive whose entry climbs out of the app directory.
  const evil = pack();
  evil.entry({ name: '../escaped.txt' }, 'outside');
  evil.finalize();
  const gz = createGzip();
  const done = gzipOf(gz);
  await pipeline(evil, gz);
  archives.set('/evil', { body: await done, unavailable: 0, requests: 0 });
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await removeAppDirs();
});

/** Starts the runner of `runtime` as a pod does: an empty /app and the artifact's URL. */
async function startFetching(runtime: Runtime, dir: string, artifact: string) {
  const port = await freePort();
  const { command, args, env } = runnerCommand(
    RUNNERS,
    runtime,
    'serve',
    dir,
    entrypointOf(runtime),
    {
      port,
    },
  );
  const runner = startRunner(command, args, {
    cwd: dir,
    env: { ...process.env, ...env, SVC_ARTIFACT_URL: `${base}/${artifact}` },
  });
  return { runner, baseUrl: `http://127.0.0.1:${port}` };
}

describe.each(['python3.11', 'node22', 'bun'] as const)(
  'the %s runner fetching its code',
  (runtime) => {
    const artifact = runtime === 'python3.11' ? 'python3.11' : 'node22';

    it('fetches the artifact through 503s into the empty app directory and serves it, the URL hidden', async () => {
      const entry = archives.get(`/${artifact}`)!;
      entry.unavailable = 2;
      entry.requests = 0;
      const dir = await mkdtemp(join(tmpdir(), 'svc-app-'));
      const { runner, baseUrl } = await startFetching(runtime, dir, artifact);
      try {
        await waitForHealth(runner, baseUrl);
        const text = await (await fetch(`${baseUrl}/`)).text();
        expect(text).toBe(`deep ${artifact}|none`);
        expect(entry.requests).toBe(3);
        const mode = (await stat(join(dir, entrypointOf(runtime)))).mode & 0o777;
        expect(mode).toBe(0o644);
      } finally {
        await stopRunner(runner);
      }
      // A restarted container (same volume) serves what it has, without fetching again.
      const again = await startFetching(runtime, dir, artifact);
      try {
        await waitForHealth(again.runner, again.baseUrl);
        expect(entry.requests).toBe(3);
      } finally {
        await stopRunner(again.runner);
      }
    });

    it('stops at an entry that would leave the app directory, writing nothing outside', async () => {
      const parent = await mkdtemp(join(tmpdir(), 'svc-evil-'));
      const dir = join(parent, 'app');
      await (await import('node:fs/promises')).mkdir(dir);
      const { runner, baseUrl } = await startFetching(runtime, dir, 'evil');
      const { exit, everHealthy } = await exitWithoutHealth(runner, baseUrl);
      expect(exit.code).toBe(1);
      expect(everHealthy).toBe(false);
      expect(runner.stderr()).toMatch(/outside the app directory/);
      expect(existsSync(join(parent, 'escaped.txt'))).toBe(false);
      await expect(readFile(join(parent, 'escaped.txt'), 'utf8')).rejects.toThrow();
    });
  },
);

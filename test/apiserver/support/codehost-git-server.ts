/**
 * A real Git server on loopback for the code-host tests: bare repositories
 * served by `git http-backend` (git's own smart-HTTP CGI program) behind a
 * tiny node:http bridge that demands HTTP Basic authentication with one
 * token, as a hosted Git server would. Plus a working clone to commit and
 * push from, over that same HTTP.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A running Git server. */
export interface GitServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The token every request must carry (as the Basic password). */
  token: string;
  /** Authorization headers the server saw, refused ones included. */
  seenAuthorizations: string[];
  /** Creates a bare repository `<name>.git` with one commit on `main`; returns its clone URL. */
  createRepository(name: string, files: Record<string, string>): Promise<string>;
  /** Commits `files` (path -> content; null deletes) to `branch` of `name` and pushes; returns the commit id. */
  commit(
    name: string,
    branch: string,
    files: Record<string, string | null>,
    message: string,
  ): Promise<string>;
  close(): Promise<void>;
}

/** Runs git with a configuration of its own (no user or system files). */
export async function git(
  args: string[],
  cwd: string,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.com',
      ...extraEnv,
    },
  });
  return stdout;
}

/** Starts the server with a fresh root directory. */
export async function startGitServer(token: string): Promise<GitServer> {
  const root = await mkdtemp(join(tmpdir(), 'svc-git-server-'));
  const reposDir = join(root, 'repos');
  const work = join(root, 'work');
  await mkdir(reposDir);
  await mkdir(work);
  const seenAuthorizations: string[] = [];
  const expected = (authorization: string | undefined) => {
    const basic = /^Basic (.+)$/.exec(authorization ?? '')?.[1];
    if (!basic) return false;
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    return decoded.slice(decoded.indexOf(':') + 1) === token;
  };
  const server: Server = createServer((req, res) => {
    seenAuthorizations.push(req.headers.authorization ?? '');
    if (!expected(req.headers.authorization)) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' });
      res.end('authentication required\n');
      return;
    }
    cgi(req, res, reposDir);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const pushEnv = {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`git:${token}`).toString('base64')}`,
  };
  return {
    url,
    token,
    seenAuthorizations,
    async createRepository(name, files) {
      const bare = join(reposDir, `${name}.git`);
      await git(['init', '--quiet', '--bare', '--initial-branch=main', bare], root);
      await git(['config', 'http.receivepack', 'true'], bare);
      await git(['config', 'uploadpack.allowReachableSHA1InWant', 'true'], bare);
      const clone = join(work, name);
      await git(['init', '--quiet', '--initial-branch=main', clone], root);
      await git(['remote', 'add', 'origin', `${url}/${name}.git`], clone);
      await writeFiles(clone, files);
      await git(['add', '--all'], clone);
      await git(['commit', '--quiet', '-m', 'initial'], clone);
      await git(['push', '--quiet', 'origin', 'main'], clone, pushEnv);
      return `${url}/${name}.git`;
    },
    async commit(name, branch, files, message) {
      const clone = join(work, name);
      await git(['checkout', '--quiet', '-B', branch], clone);
      await writeFiles(clone, files);
      await git(['add', '--all'], clone);
      await git(['commit', '--quiet', '-m', message], clone);
      await git(['push', '--quiet', '--force', 'origin', branch], clone, pushEnv);
      return (await git(['rev-parse', 'HEAD'], clone)).trim();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function writeFiles(dir: string, files: Record<string, string | null>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    if (content === null) {
      await rm(full, { force: true });
      continue;
    }
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
  }
}

/** Hands the request to `git http-backend` as CGI and relays its answer. */
function cgi(req: IncomingMessage, res: ServerResponse, projectRoot: string): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: '1',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    REQUEST_METHOD: req.method ?? 'GET',
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    REMOTE_USER: 'git',
    REMOTE_ADDR: '127.0.0.1',
    ...(req.headers['content-encoding']
      ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] }
      : {}),
    ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
  };
  const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  });
  child.stdout.on('end', () => {
    if (!headersDone) res.writeHead(502);
    res.end();
  });
  child.on('error', () => {
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
}

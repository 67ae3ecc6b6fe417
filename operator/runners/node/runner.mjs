#!/usr/bin/env node
// @ts-check
/**
 * The platform's Node runner: serves a service agent's HTTP `app` or runs a job agent's script.
 * Bun runs it too, for the `bun` runtime (`bun --no-install runner.mjs …`): Bun's node:http
 * serves the app, and the few differences (TypeScript, the main module) are marked `isBun`.
 *
 *   node operator/runners/node/runner.mjs serve --app-dir DIR --entrypoint FILE [--port P] [--host H | --socket PATH]
 *   node operator/runners/node/runner.mjs run   --app-dir DIR --entrypoint FILE
 *   node operator/runners/node/runner.mjs check --app-dir DIR --entrypoint FILE
 *
 * Plain JavaScript so it runs without a build step (in a runner image too); TypeScript entry
 * points need tsx resolvable from this file. Defaults suit an image whose pod passes only the
 * mode with workingDir /app: --app-dir is the working directory, --entrypoint $SVC_ENTRYPOINT,
 * --port $PORT or 8080, --host 0.0.0.0. The local driver passes --socket PATH instead: the runner
 * serves on a Unix socket at PATH (a stale socket file there is replaced), the only way its edge
 * reaches a sandboxed service.
 * SVC_RUNNER_ERROR_FILE, when set, names a file that receives the one-line reason of a failure.
 * SVC_ARTIFACT_URL, when set (a cluster pod), is where the agent's built code is fetched from
 * into an empty --app-dir first (fetch.mjs).
 *
 * Exit codes. serve: 0 after SIGTERM/SIGINT and a graceful close; 1 cannot listen, or an error
 * thrown outside any request later on; 2 bad command line; 3 the entry point failed to load or
 * has no servable `app` (never healthy). run: the script's own (0, `process.exitCode`,
 * `process.exit(n)`), 1 on an uncaught error; 3 when the entry point file does not exist.
 * check (a build step: parses, runs nothing): 0, or 3 when the entry point is missing or does not
 * compile, with the parser's message, file and line as the reason.
 */
import { statSync, unlinkSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect, parseArgs } from 'node:util';
import { located, syntaxProblem } from './check.mjs';
import { fetchArtifact } from './fetch.mjs';
import { createAgentServer, fetchListener } from './http.mjs';
import { awaitNetwork } from './network.mjs';
import {
  EntrypointError,
  appShape,
  entrypointPath,
  findApp,
  isBun,
  loadEntrypoint,
  moduleKind,
  upgradeListener,
} from './load.mjs';

const EXIT_UNCAUGHT = 1;
const EXIT_CANNOT_LISTEN = 1;
const EXIT_USAGE = 2;
const EXIT_ENTRYPOINT_FAILED = 3;
// Below the pod's 30 s termination grace, so in-flight requests finish before SIGKILL.
const GRACEFUL_SHUTDOWN_MS = 20_000;

const USAGE =
  'usage: node runner.mjs <serve|run|check> [--app-dir DIR] [--entrypoint FILE] [--port P] [--host H | --socket PATH]';

/**
 * The `Type: message` line Node prints for an error, on one line: the line of the stack's header
 * that names the error (a SyntaxError's header starts with the file and the caret; a
 * MODULE_NOT_FOUND message goes on with its require stack). A line ending in a colon announces
 * the detail on the next one (esbuild's "Transform failed with 1 error:"), which is kept.
 * @param {unknown} error
 */
function errorLine(error) {
  // Bun's parse errors (BuildMessage) carry where they are as `position`.
  const bun =
    /** @type {{ name?: string, message?: string, position?: { file?: string, line?: number } | null }} */ (
      error
    );
  if (typeof bun?.position?.file === 'string' && typeof bun.position.line === 'number') {
    const name = bun.name ?? 'SyntaxError';
    return located(name, bun.message ?? '', bun.position.file, bun.position.line);
  }
  if (!(error instanceof Error)) return inspect(error).split('\n', 1)[0] ?? '';
  const header = (error.stack ?? '').split(/\n\s+at /, 1)[0] ?? '';
  const headerLines = header.split('\n');
  let index = headerLines.findIndex(
    (line) => line.startsWith(`${error.name}:`) || line.startsWith(`${error.name} [`),
  );
  let lines = headerLines;
  if (index < 0) {
    lines = `${error.name}: ${error.message}`.split('\n');
    index = 0;
  }
  const line = lines[index] ?? error.name;
  const next = lines[index + 1]?.trim();
  // A SyntaxError's header starts with `file:line` (a path or a file: URL): name both.
  const where = error.name === 'SyntaxError' ? /^(.+):(\d+)$/.exec(headerLines[0] ?? '') : null;
  if (where && line.startsWith('SyntaxError: ')) {
    return located(
      'SyntaxError',
      line.slice('SyntaxError: '.length),
      where[1] ?? '',
      Number(where[2]),
    );
  }
  return line.endsWith(':') && next ? `${line} ${next}` : line;
}

/**
 * Records the one-line reason for the driver, which shows it as the deploy's or run's reason.
 * @param {string} line
 */
function writeErrorFile(line) {
  const file = process.env.SVC_RUNNER_ERROR_FILE;
  if (!file) return;
  try {
    writeFileSync(file, `${line}\n`);
  } catch (error) {
    // The reason still reaches stderr; a bad path must not mask the user's error.
    console.error(`svc-runner: could not write SVC_RUNNER_ERROR_FILE ${file}: ${inspect(error)}`);
  }
}

/**
 * Reports an entry point that cannot be served: its own message for the runner's findings, the
 * error as Node prints an uncaught one (stack and properties) for anything the code threw.
 * @param {unknown} error
 * @returns {never}
 */
function failEntrypoint(error) {
  if (error instanceof EntrypointError) {
    console.error(error.message);
    writeErrorFile(error.message);
  } else {
    console.error(inspect(error));
    writeErrorFile(errorLine(error));
  }
  process.exit(EXIT_ENTRYPOINT_FAILED);
}

/**
 * @typedef {object} Options
 * @property {'serve' | 'run' | 'check'} mode
 * @property {string} appDir absolute
 * @property {string} entrypoint relative to appDir
 * @property {string} host
 * @property {number} port
 * @property {string | undefined} socket a Unix socket path, served instead of host:port
 */

/** @returns {Options} */
function parseCommandLine() {
  try {
    const { positionals, values } = parseArgs({
      allowPositionals: true,
      options: {
        'app-dir': { type: 'string' },
        entrypoint: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        socket: { type: 'string' },
      },
    });
    const mode = positionals[0];
    if ((mode !== 'serve' && mode !== 'run' && mode !== 'check') || positionals.length !== 1) {
      throw new Error('the mode must be `serve`, `run` or `check`');
    }
    const entrypoint = values.entrypoint ?? process.env.SVC_ENTRYPOINT;
    if (!entrypoint) throw new Error('no entry point: pass --entrypoint or set SVC_ENTRYPOINT');
    const port = Number(values.port ?? process.env.PORT ?? 8080);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad port ${port}`);
    return {
      mode,
      appDir: resolve(values['app-dir'] ?? process.cwd()),
      entrypoint,
      host: values.host ?? '0.0.0.0',
      port,
      socket: values.socket,
    };
  } catch (error) {
    console.error(
      `svc-runner: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`,
    );
    process.exit(EXIT_USAGE);
  }
}

/**
 * Builds the request listener for a supported `app`; EntrypointError otherwise.
 * @param {unknown} app
 * @param {string} entrypoint
 */
function listenerFor(app, entrypoint) {
  if (app === undefined) {
    throw new EntrypointError(
      `The entry point ${entrypoint} does not export \`app\` (an HTTP application).`,
    );
  }
  const shape = appShape(app);
  switch (shape) {
    case 'koa':
      return { shape, listener: /** @type {import('./load.mjs').KoaApp} */ (app).callback() };
    case 'fetch':
      return { shape, listener: fetchListener(/** @type {import('./load.mjs').FetchApp} */ (app)) };
    case 'listener':
      return { shape, listener: /** @type {import('./load.mjs').RequestListener} */ (app) };
    default:
      throw new EntrypointError(
        `\`app\` in ${entrypoint} is not an HTTP application: expected a request listener ` +
          '(req, res) => …, a Koa-style app with callback(), or an object with fetch(request); ' +
          `got ${inspect(app, { depth: 0 })}.`,
      );
  }
}

/**
 * Removes the socket file a previous process of the service left (it crashed): listen(path)
 * fails on any existing file. Any other kind of file there stays, and listening fails.
 * @param {string} path
 */
function removeStaleSocket(path) {
  try {
    if (statSync(path).isSocket()) unlinkSync(path);
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOENT') throw error;
  }
}

/** @param {Options} options */
async function serve({ appDir, entrypoint, host, port, socket }) {
  /** @type {{ shape: string, listener: import('./load.mjs').RequestListener }} */
  let handler;
  /** @type {unknown} */
  let app;
  await awaitNetwork();
  try {
    const file = entrypointPath(appDir, entrypoint);
    // Not the entry point as argv[1]: the ES module idiom for "run directly", comparing
    // import.meta.url with process.argv[1], must stay false, as __main__ blocks do in Python.
    process.argv = [process.execPath, fileURLToPath(import.meta.url)];
    app = await findApp(await loadEntrypoint(file));
    handler = listenerFor(app, entrypoint);
  } catch (error) {
    failEntrypoint(error);
  }

  const { server, close } = createAgentServer(handler.listener, upgradeListener(app));
  const address = socket ? `unix:${socket}` : `http://${host}:${port}`;
  try {
    if (socket) removeStaleSocket(socket);
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      if (socket) server.listen(socket, () => resolve(undefined));
      else server.listen(port, host, () => resolve(undefined));
    });
  } catch (error) {
    console.error(`svc-runner: cannot listen on ${address}: ${inspect(error)}`);
    process.exit(EXIT_CANNOT_LISTEN);
  }
  console.error(`svc-runner: serving ${entrypoint} (${handler.shape}) on ${address}`);

  let stopping = false;
  /** @param {NodeJS.Signals} signal */
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    console.error(`svc-runner: ${signal}, closing the server`);
    await close(GRACEFUL_SHUTDOWN_MS);
    // Exit even if user code keeps the event loop busy (timers, pools): the service is stopped.
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** @param {Options} options */
async function run({ appDir, entrypoint }) {
  /** @type {string} */
  let file;
  try {
    file = entrypointPath(appDir, entrypoint);
  } catch (error) {
    failEntrypoint(error);
  }
  process.argv = [process.execPath, file];
  if (isBun) {
    // Bun's Module.runMain neither makes the file the main module nor reports what it throws.
    // Pointing Bun.main at it does the first, as `bun FILE` would: `import.meta.main` and
    // `require.main === module` hold; loading it below does the second.
    /** @type {{ Bun: { main: string } }} */ (/** @type {unknown} */ (globalThis)).Bun.main = file;
  } else if (moduleKind(file) !== 'typescript') {
    // Node's own entry-point loader, as `node FILE` uses: `require.main === module` holds in a
    // CommonJS script and the exit code, uncaught errors and printing are Node's.
    try {
      Module.runMain(file);
    } catch (error) {
      // A CommonJS script's synchronous top-level throw surfaces here rather than uncaught.
      console.error(inspect(error));
      writeErrorFile(errorLine(error));
      process.exit(EXIT_UNCAUGHT);
    }
    return;
  }
  // Under Node, TypeScript goes through tsx's tsImport: the script runs, but as an imported
  // module, so a `require.main === module` check in it is false. Under Bun every script comes
  // here, as the main module.
  try {
    await loadEntrypoint(file);
  } catch (error) {
    console.error(inspect(error));
    writeErrorFile(errorLine(error));
    process.exit(EXIT_UNCAUGHT);
  }
  // The process then ends when the script's work does, with its process.exitCode.
}

/** @param {Options} options */
async function check({ appDir, entrypoint }) {
  /** @type {string} */
  let file;
  try {
    file = entrypointPath(appDir, entrypoint);
  } catch (error) {
    failEntrypoint(error);
  }
  const problem = await syntaxProblem(file);
  if (problem) failEntrypoint(new EntrypointError(problem));
}

const options = parseCommandLine();
try {
  if (options.mode !== 'check') await fetchArtifact(options.appDir);
} catch (error) {
  console.error(`svc-runner: ${error instanceof Error ? error.message : inspect(error)}`);
  process.exit(EXIT_UNCAUGHT);
}
try {
  process.chdir(options.appDir);
} catch (error) {
  console.error(`svc-runner: --app-dir ${options.appDir}: ${inspect(error)}\n${USAGE}`);
  process.exit(EXIT_USAGE);
}
// Node prints an uncaught error and exits 1 by itself; the driver also wants the reason.
process.on('uncaughtExceptionMonitor', (error) => writeErrorFile(errorLine(error)));
await { serve, run, check }[options.mode](options);

/**
 * The Python runner (operator/runners/python/svc_runner) as the local driver runs it: a real
 * `python -m svc_runner` from .tools/runner-venv, real uvicorn, real HTTP and WebSockets.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
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

const python = join(repoRoot, '.tools', 'runner-venv', 'bin', 'python');
const runnerPath = join(repoRoot, 'operator', 'runners', 'python');

/** Starts `python -m svc_runner <mode>` for `dir` the way the local driver does. */
function startPythonRunner(dir: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return startRunner(python, ['-m', 'svc_runner', ...args, '--app-dir', dir], {
    cwd: dir,
    env: {
      ...process.env,
      PYTHONPATH: `${runnerPath}:${join(dir, '.svc', 'deps')}`,
      PYTHONDONTWRITEBYTECODE: '1',
      ...env,
    },
  });
}

/** Serves `dir` on a free loopback port; `errorFile` is the SVC_RUNNER_ERROR_FILE it gets. */
async function serve(dir: string, entrypoint = 'main.py') {
  const port = await freePort();
  const errorFile = join(dir, 'error.txt');
  const args = ['serve', '--entrypoint', entrypoint, '--port', String(port), '--host', '127.0.0.1'];
  const runner = startPythonRunner(dir, args, { SVC_RUNNER_ERROR_FILE: errorFile });
  return { runner, baseUrl: `http://127.0.0.1:${port}`, errorFile };
}

// A raw ASGI3 app: lifespan, JSON routes, its own /health (never reached) and a WebSocket echo.
const ASGI_APP = `
import json
import pathlib

async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            else:
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            await send({"type": "websocket.send", "text": "echo: " + message["text"]})
    if scope["path"] == "/health":
        status, body = 503, {"status": "from the app"}
    else:
        status, body = 200, {"path": scope["path"], "module": __name__}
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json")],
    })
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})

if __name__ == "__main__":
    pathlib.Path("main-block-ran").write_text("the __main__ block must not run")
`;

afterAll(removeAppDirs);

describe('python runner serve', () => {
  it('serves the ASGI app, answers /health itself and never runs the __main__ block', async () => {
    const dir = await makeAppDir({ 'main.py': ASGI_APP });
    const { runner, baseUrl } = await serve(dir);
    try {
      await waitForHealth(runner, baseUrl);
      const route = await fetch(`${baseUrl}/items/1`);
      expect(route.status).toBe(200);
      expect(await route.json()).toEqual({ path: '/items/1', module: 'main' });
      const health = await fetch(`${baseUrl}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      expect(existsSync(join(dir, 'main-block-ran'))).toBe(false);
    } finally {
      expect(await stopRunner(runner)).toEqual({ code: 0, signal: null });
    }
    // Request access logs are off and the server's own lines go to stderr.
    expect(runner.stdout()).toBe('');
    expect(runner.stderr()).toContain('Application startup complete');
  });

  it('serves on the Unix socket --socket names, in place of a stale socket file left there', async () => {
    const dir = await makeAppDir({ 'main.py': ASGI_APP });
    const socket = await socketPath();
    leaveStaleSocket(socket);
    const runner = startPythonRunner(dir, ['serve', '--entrypoint', 'main.py', '--socket', socket]);
    try {
      await waitForSocketHealth(runner, socket);
      const route = await getOverSocket(socket, '/items/2');
      expect(route.status).toBe(200);
      expect(JSON.parse(route.body)).toEqual({ path: '/items/2', module: 'main' });
    } finally {
      expect(await stopRunner(runner)).toEqual({ code: 0, signal: null });
    }
    expect(runner.stderr()).toContain(`serving main.py on unix:${socket}`);
  });

  it('echoes over a WebSocket through uvicorn', async () => {
    const dir = await makeAppDir({ 'main.py': ASGI_APP });
    const { runner, baseUrl } = await serve(dir);
    try {
      await waitForHealth(runner, baseUrl);
      const reply = await firstWebSocketMessage(`${baseUrl.replace('http', 'ws')}/echo`, 'hi');
      expect(reply).toBe('echo: hi');
    } finally {
      await stopRunner(runner);
    }
  });

  it('imports the dependencies pip installed into .svc/deps', async () => {
    const dir = await makeAppDir({
      'main.py': `
import six

async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": six.__version__.encode()})
`,
    });
    const pip = spawnSync(
      python,
      ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target'].concat([
        join(dir, '.svc', 'deps'),
        'six==1.16.0',
      ]),
      { encoding: 'utf8' },
    );
    expect(`${pip.stderr}exit ${pip.status}`).toMatch(/exit 0$/);
    const { runner, baseUrl } = await serve(dir);
    try {
      await waitForHealth(runner, baseUrl);
      const response = await fetch(`${baseUrl}/`);
      expect(await response.text()).toBe('1.16.0');
    } finally {
      await stopRunner(runner);
    }
  }, 120_000);

  it('finishes an in-flight response on SIGTERM, then exits 0', async () => {
    const dir = await makeAppDir({
      'main.py': `
import asyncio

async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"started ", "more_body": True})
    await asyncio.sleep(0.3)
    await send({"type": "http.response.body", "body": b"finished"})
`,
    });
    const { runner, baseUrl } = await serve(dir);
    await waitForHealth(runner, baseUrl);
    // Headers are in, so the request is in flight when the signal arrives.
    const response = await fetch(`${baseUrl}/slow`);
    runner.child.kill('SIGTERM');
    expect(await response.text()).toBe('started finished');
    expect(await runner.exited).toEqual({ code: 0, signal: null });
  });

  it('stops on a SIGTERM that comes after the app is imported and before uvicorn serves', async () => {
    // The app's own thread sends the signal the moment the runner puts in its first handler,
    // which is after the import and before uvicorn listens for signals. The runner once lost such
    // a signal to a handler that did nothing, and never stopped.
    const dir = await makeAppDir({
      'main.py': `
import os
import signal
import threading

def stop_when_handled():
    while signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        pass
    os.kill(os.getpid(), signal.SIGTERM)

threading.Thread(target=stop_when_handled, daemon=True).start()

async def app(scope, receive, send):
    pass
`,
    });
    const { runner } = await serve(dir);
    const stillRunning = new Promise<'still running'>((resolve) =>
      setTimeout(() => resolve('still running'), 15_000).unref(),
    );
    try {
      expect(await Promise.race([runner.exited, stillRunning])).toEqual({ code: 0, signal: null });
    } finally {
      await stopRunner(runner, 1000);
    }
  }, 30_000);

  it('exits 3 without ever being healthy when the entry point fails to import', async () => {
    const dir = await makeAppDir({ 'main.py': 'import nope\n\napp = None\n' });
    const { runner, baseUrl, errorFile } = await serve(dir);
    const { exit, everHealthy } = await exitWithoutHealth(runner, baseUrl);
    expect(exit).toEqual({ code: 3, signal: null });
    expect(everHealthy).toBe(false);
    expect(runner.stderr()).toContain('Traceback (most recent call last):');
    expect(runner.stderr()).toContain(`File "${join(dir, 'main.py')}", line 1, in <module>`);
    expect(runner.stderr()).toContain("ModuleNotFoundError: No module named 'nope'");
    expect(await readFile(errorFile, 'utf8')).toBe("ModuleNotFoundError: No module named 'nope'\n");
  });

  it('names the file, relative to the code, and the line of a SyntaxError in the reason', async () => {
    const dir = await makeAppDir({
      'main.py': 'from pkg import helpers\napp = helpers.app\n',
      'pkg/__init__.py': '',
      'pkg/helpers.py': 'def app(scope):\n    return (\n',
    });
    const { runner, baseUrl, errorFile } = await serve(dir);
    const { exit } = await exitWithoutHealth(runner, baseUrl);
    expect(exit.code).toBe(3);
    expect(await readFile(errorFile, 'utf8')).toBe(
      "SyntaxError: '(' was never closed (pkg/helpers.py, line 2)\n",
    );
  });

  it('exits 3 with the contract message when the entry point exports no app', async () => {
    const dir = await makeAppDir({ 'server.py': 'application = None\n' });
    const { runner, baseUrl, errorFile } = await serve(dir, 'server.py');
    const { exit, everHealthy } = await exitWithoutHealth(runner, baseUrl);
    const message = 'The entry point server.py does not export `app` (an ASGI application).';
    expect(exit.code).toBe(3);
    expect(everHealthy).toBe(false);
    expect(runner.stderr()).toContain(message);
    expect(await readFile(errorFile, 'utf8')).toBe(`${message}\n`);
  });

  it('exits 3 with the reason when the app fails its lifespan startup', async () => {
    const dir = await makeAppDir({
      'main.py': `
async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        await receive()
        await send({"type": "lifespan.startup.failed", "message": "database unreachable"})
`,
    });
    const { runner, baseUrl, errorFile } = await serve(dir);
    const { exit, everHealthy } = await exitWithoutHealth(runner, baseUrl);
    expect(exit.code).toBe(3);
    expect(everHealthy).toBe(false);
    expect(await readFile(errorFile, 'utf8')).toBe('database unreachable\n');
  });
});

describe('python runner run', () => {
  async function run(source: string) {
    const dir = await makeAppDir({ 'job.py': source });
    const errorFile = join(dir, 'error.txt');
    const runner = startPythonRunner(dir, ['run', '--entrypoint', 'job.py'], {
      SVC_RUNNER_ERROR_FILE: errorFile,
    });
    const exit = await runner.exited;
    return { dir, exit, errorFile, stdout: runner.stdout(), stderr: runner.stderr() };
  }

  it('runs the script as __main__ and exits 0', async () => {
    const { exit, stdout } = await run(
      'if __name__ == "__main__":\n    print("job ran as", __name__)\n',
    );
    expect(exit).toEqual({ code: 0, signal: null });
    expect(stdout).toBe('job ran as __main__\n');
  });

  it("exits with the script's SystemExit code", async () => {
    const { exit } = await run('import sys\nsys.exit(7)\n');
    expect(exit.code).toBe(7);
  });

  it('exits 1 with the traceback on an uncaught exception', async () => {
    const { exit, stderr, errorFile } = await run(
      'def fail():\n    raise ValueError("bad input")\n\nfail()\n',
    );
    expect(exit.code).toBe(1);
    expect(stderr).toContain('Traceback (most recent call last):');
    expect(stderr).toContain('in fail');
    expect(stderr).toContain('ValueError: bad input');
    expect(await readFile(errorFile, 'utf8')).toBe('ValueError: bad input\n');
  });
});

describe('python runner check', () => {
  async function check(files: Record<string, string>, entrypoint = 'job.py') {
    const dir = await makeAppDir(files);
    const errorFile = join(dir, 'error.txt');
    const runner = startPythonRunner(dir, ['check', '--entrypoint', entrypoint], {
      SVC_RUNNER_ERROR_FILE: errorFile,
    });
    const exit = await runner.exited;
    const reason = existsSync(errorFile) ? await readFile(errorFile, 'utf8') : null;
    return { dir, exit, reason, stdout: runner.stdout(), stderr: runner.stderr() };
  }

  it('compiles the entry point without running it or writing bytecode', async () => {
    const { dir, exit, stdout, reason } = await check({
      'job.py': 'import nothing_installed\nprint("ran")\n',
    });
    expect(exit).toEqual({ code: 0, signal: null });
    expect([stdout, reason]).toEqual(['', null]);
    expect(existsSync(join(dir, '__pycache__'))).toBe(false);
  });

  it.each([
    ['an unclosed bracket', 'x = (\n', "SyntaxError: '(' was never closed (job.py, line 1)"],
    [
      'a bad indent',
      'if True:\nprint(1)\n',
      "IndentationError: expected an indented block after 'if' statement on line 1 (job.py, line 2)",
    ],
  ])('exits 3 with the message, file and line of %s', async (_case, source, expected) => {
    const { exit, reason, stderr } = await check({ 'job.py': source });
    expect(exit.code).toBe(3);
    expect(reason).toBe(`${expected}\n`);
    expect(stderr).toBe(`${expected}\n`);
  });

  it('names a nested entry point relative to the code', async () => {
    const { reason } = await check({ 'jobs/nightly.py': 'def f(:\n' }, 'jobs/nightly.py');
    expect(reason).toBe('SyntaxError: invalid syntax (jobs/nightly.py, line 1)\n');
  });

  it('exits 3 for a missing entry point without naming where the code is', async () => {
    const { exit, reason } = await check({ 'main.py': '' }, 'job.py');
    expect(exit.code).toBe(3);
    expect(reason).toBe("The entry point job.py was not found in the agent's code.\n");
  });
});

/**
 * The builder the cluster's build Jobs run, against the real API server's
 * internal routes: unpack the code archive, install its dependencies with
 * pip, store the artifact, and fetch it back as an agent pod's runner does.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../hack/lib/paths.js';
import { internalToken } from '../../common/internal-token.js';
import { runBuilder } from '../../operator/builder/cli.js';
import { RUNNERS } from '../../operator/src/drivers/local/runner-command.js';
import { PYTHON_SERVICE } from '../factories/archives.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { deployFiles } from '../apiserver/deploy/deploy-helpers.js';

let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'svc-builder-'));

beforeAll(async () => {
  server = await startControlPlaneServer();
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('builder', () => {
  it('unpacks, installs with pip, stores the artifact, and fetches it back', async () => {
    const owner = await createCaller(server);
    await call(server, 'POST', '/api/v1/agents', {
      key: owner.key,
      body: { name: 'built-by-job' },
    });
    const d = (
      await deployFiles(server, owner.key, 'built-by-job', {
        'main.py': PYTHON_SERVICE,
        'requirements.txt': 'six==1.16.0\n',
      })
    ).body;
    const url = (
      what: 'archive' | 'artifact',
      purpose: 'archive:read' | 'artifact:write' | 'artifact:read',
    ) =>
      `${server.base}/internal/deployments/${d.id}/${what}?token=${internalToken(server.internalSecret, purpose, d.id)}`;
    const workspace = join(dir, 'workspace');
    const app = join(dir, 'app');

    process.env.SVC_ARCHIVE_URL = url('archive', 'archive:read');
    await runBuilder(['unpack', '--dest', workspace]);
    expect(readFileSync(join(workspace, 'main.py'), 'utf8')).toBe(PYTHON_SERVICE);

    process.env.SVC_ARTIFACT_URL = url('artifact', 'artifact:write');
    process.env.SVC_PYTHON = RUNNERS.python;
    await runBuilder(['build', '--source', workspace, '--runtime', 'python3.11']);

    // What an agent pod's runner does with it (operator/runners/node/fetch.mjs, in a process
    // of its own as in the pod).
    mkdirSync(app, { recursive: true });
    const fetchModule = join(repoRoot, 'operator', 'runners', 'node', 'fetch.mjs');
    // Not execFileSync: the API server answering it runs in this process.
    await promisify(execFile)(
      process.execPath,
      [
        '-e',
        `import(process.argv[1]).then((m) => m.fetchArtifact(process.argv[2]))`,
        fetchModule,
        app,
      ],
      { env: { ...process.env, SVC_ARTIFACT_URL: url('artifact', 'artifact:read') } },
    );
    expect(readFileSync(join(app, 'main.py'), 'utf8')).toBe(PYTHON_SERVICE);
    expect(existsSync(join(app, '.svc', 'deps', 'six.py'))).toBe(true);
  }, 120_000);

  it('fails with the tool message when a dependency cannot be installed', async () => {
    const owner = await createCaller(server);
    await call(server, 'POST', '/api/v1/agents', { key: owner.key, body: { name: 'bad-deps' } });
    const d = (
      await deployFiles(server, owner.key, 'bad-deps', {
        'main.py': PYTHON_SERVICE,
        'requirements.txt': 'this-package-does-not-exist-svc==9.9.9\n',
      })
    ).body;
    const workspace = join(dir, 'bad');
    process.env.SVC_ARCHIVE_URL = `${server.base}/internal/deployments/${d.id}/archive?token=${internalToken(server.internalSecret, 'archive:read', d.id)}`;
    await runBuilder(['unpack', '--dest', workspace]);
    process.env.SVC_ARTIFACT_URL = `${server.base}/internal/deployments/${d.id}/artifact?token=${internalToken(server.internalSecret, 'artifact:write', d.id)}`;
    await expect(
      runBuilder(['build', '--source', workspace, '--runtime', 'python3.11']),
    ).rejects.toThrow(/pip install failed.*this-package-does-not-exist-svc/);
  }, 120_000);

  it('compile-checks the entry point, failing with the message, file and line, paths relative to the code', async () => {
    const workspace = join(dir, 'syntax');
    mkdirSync(join(workspace, 'jobs'), { recursive: true });
    writeFileSync(join(workspace, 'jobs', 'nightly.py'), 'print("never runs")\nvalues = (1, 2\n');
    writeFileSync(join(workspace, 'requirements.txt'), '-e .\n');
    process.env.SVC_PYTHON = RUNNERS.python;
    process.env.SVC_ARTIFACT_URL = `${server.base}/internal/deployments/none/artifact`;
    const build = (entrypoint: string) =>
      runBuilder([
        'build',
        ...['--source', workspace, '--runtime', 'python3.11', '--entrypoint', entrypoint],
      ]);
    // The builder's own directory is named as the code's root: `.`.
    await expect(build('jobs/nightly.py')).rejects.toThrow(
      'ERROR: . (from -r requirements.txt (line 1)) does not appear to be a Python project',
    );
    rmSync(join(workspace, 'requirements.txt'));
    await expect(build('jobs/nightly.py')).rejects.toThrow(
      /^SyntaxError: '\(' was never closed \(jobs\/nightly\.py, line 2\)$/,
    );
  }, 120_000);
});

import { describe, expect, it } from '@jest/globals';
import { generateSecret } from '../../../../common/secrets.js';
import { loadOperatorConfig } from '../../config.js';
import { RUNNERS, runnerCommand, runnerPaths, runtimeAvailable } from './runner-command.js';

describe('runnerCommand', () => {
  it('runs bun agents with the Bun of SVC_BUN_PATH, auto-install off, on the Node runner', () => {
    const paths = runnerPaths(
      loadOperatorConfig({
        SVC_BUN_PATH: '/opt/bun/bin/bun',
        SVC_INTERNAL_SECRET: generateSecret(),
      }),
    );
    const command = runnerCommand(paths, 'bun', 'serve', '/app', 'index.ts', {
      socket: '/run/sock/app.sock',
    });
    expect(command.command).toBe('/opt/bun/bin/bun');
    expect(command.args).toEqual([
      '--no-install',
      RUNNERS.nodeRunner,
      'serve',
      '--app-dir',
      '/app',
      '--entrypoint',
      'index.ts',
      '--socket',
      '/run/sock/app.sock',
    ]);
  });

  it("defaults to the Bun that hack/bun.mjs installs, and runs node agents on the operator's Node", () => {
    const paths = runnerPaths(loadOperatorConfig({ SVC_INTERNAL_SECRET: generateSecret() }));
    expect(paths.bun).toBe(RUNNERS.bun);
    expect(RUNNERS.bun).toMatch(/\/\.tools\/bun\/bin\/bun$/);
    const command = runnerCommand(paths, 'node22', 'run', '/app', 'job.js');
    expect(command.command).toBe(process.execPath);
    expect(command.args[0]).toBe(RUNNERS.nodeRunner);
  });
});

describe('runtimeAvailable', () => {
  it('says how to install Bun when its binary is missing', () => {
    const paths = { ...RUNNERS, bun: '/nonexistent/bun' };
    expect(runtimeAvailable(paths, 'bun')).toEqual({
      ok: false,
      reason:
        'Bun is not installed at /nonexistent/bun; run `node hack/bun.mjs` or set SVC_BUN_PATH.',
    });
    expect(runtimeAvailable(paths, 'node22')).toEqual({ ok: true });
  });
});

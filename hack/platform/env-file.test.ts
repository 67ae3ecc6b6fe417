import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { repoRoot } from '../lib/paths.js';
import { readEnvFileValue, writeEnvFile, type PlatformEnv } from './env-file.js';

const vars: PlatformEnv = {
  SVC_API_URL: 'http://127.0.0.1:8000',
  SVC_VECTORS_URL: 'http://127.0.0.1:8001',
  SVC_EDGE_URL: 'http://127.0.0.1:8002',
  SVC_ENGINE_URL: 'http://127.0.0.1:6333',
  SVC_AGENT_DOMAIN: 'agents.localhost',
  SVC_API_KEY: 'svc_live_example',
  KUBECONFIG: '/repo/.dev/kubeconfig',
  MONGODB_URI: 'mongodb://127.0.0.1:27017/svc',
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-env-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('.dev/env', () => {
  it('gives every variable to the programs started by a shell that sourced it', async () => {
    await writeEnvFile(join(dir, 'env'), vars);
    const { stdout } = await promisify(execFile)(
      'bash',
      ['-c', 'source ./env && node -e "process.stdout.write(JSON.stringify(process.env))"'],
      { cwd: dir, env: { PATH: process.env.PATH } },
    );
    expect(JSON.parse(stdout)).toMatchObject({ ...vars });
    expect(await readEnvFileValue(join(dir, 'env'), 'SVC_API_KEY')).toBe(vars.SVC_API_KEY);
  });

  it('has every variable listed in the README', async () => {
    const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
    for (const name of Object.keys(vars))
      expect(readme).toMatch(new RegExp(`\\| \`${name}\` +\\|`));
  });
});

import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '../../../../crds/src/index.js';
import { createLogger } from '../../../../common/logger.js';
import { ProcessGroup } from '../../../../common/processes.js';
import { AgentLauncher, machineEnv } from './agent-launcher.js';
import { REPO_NODE_MODULES, RUNNERS } from './runner-command.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-launcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const agentOf = (account: string, id: string) =>
  ({ metadata: { name: id, namespace: `svc-${account}` }, spec: { userId: account } }) as Agent;

/** A launcher on a machine where bwrap and pasta cannot be found (PATH holds neither). */
async function unconfinedLauncher(mode: 'auto' | 'required'): Promise<AgentLauncher> {
  const path = process.env.PATH;
  process.env.PATH = join(dir, 'no-tools');
  try {
    return await AgentLauncher.create({
      group: new ProcessGroup(join(dir, 'logs')),
      dir,
      runners: RUNNERS,
      repoNodeModules: REPO_NODE_MODULES,
      publicUrls: ['http://127.0.0.1:8000'],
      mode,
      log: createLogger('operator', 'silent'),
    });
  } finally {
    process.env.PATH = path;
  }
}

describe('AgentLauncher without a sandbox', () => {
  it('admits the first account only, and keeps that across a restart', async () => {
    const launcher = await unconfinedLauncher('auto');
    expect(launcher.sandboxed).toBe(false);
    expect(await launcher.admit(agentOf('acct-a', 'a1'))).toBeNull();
    expect(await launcher.admit(agentOf('acct-a', 'a2'))).toBeNull();
    expect(await launcher.admit(agentOf('acct-b', 'b1'))).toMatch(
      /cannot sandbox agents \(.*missing bwrap.*\).*one account only/,
    );
    const restarted = await unconfinedLauncher('auto');
    expect(await restarted.admit(agentOf('acct-b', 'b1'))).not.toBeNull();
    expect(await restarted.admit(agentOf('acct-a', 'a3'))).toBeNull();
  });

  it('refuses to start with SVC_SANDBOX=required, saying why', async () => {
    await expect(unconfinedLauncher('required')).rejects.toThrow(
      /missing bwrap.*SVC_SANDBOX=required/,
    );
  });
});

describe('machineEnv', () => {
  it("passes the machine's certificate, proxy and index settings, and nothing else", () => {
    expect(
      machineEnv({
        SSL_CERT_FILE: '/etc/ssl/certs/ca.crt',
        HTTPS_PROXY: 'http://proxy:3128',
        PIP_INDEX_URL: 'https://pypi.example/simple',
        SVC_INTERNAL_SECRET: 'x'.repeat(40),
        KUBECONFIG: '/root/.kube/config',
        MONGODB_URI: 'mongodb://127.0.0.1:27017',
      }),
    ).toEqual({
      SSL_CERT_FILE: '/etc/ssl/certs/ca.crt',
      HTTPS_PROXY: 'http://proxy:3128',
      PIP_INDEX_URL: 'https://pypi.example/simple',
    });
  });
});

import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  newSocketDir,
  removeAgentState,
  removeBuild,
  removeDeploymentState,
  removeOrphans,
  removeSocketDirs,
} from './state-cleanup.js';

let dir: string;

async function touch(...paths: string[]): Promise<void> {
  for (const path of paths) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), 'x');
  }
}

async function tree(): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cleanup-'));
  await touch(
    'builds/package.json',
    'builds/d1/build.json',
    'builds/d1/app/main.py',
    'builds/d2/app/main.py',
    'runs/r1.json',
    'runs/r2.json',
    'runs/r2.json.123.abc.tmp',
    'services/a1.json',
    'services/a2.json',
    'logs/agent-a1.log',
    'logs/agent-a2.log',
    'logs/run-r1.log',
    'logs/build-d1.log',
    'logs/operator.log',
  );
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('local driver state cleanup', () => {
  it('removes one build directory', async () => {
    await removeBuild(dir, 'd1');
    expect(existsSync(join(dir, 'builds/d1'))).toBe(false);
    expect(existsSync(join(dir, 'builds/d2/app/main.py'))).toBe(true);
  });

  it("removes a deployment's build, run record and logs, and nothing else", async () => {
    await removeDeploymentState(dir, 'd1');
    await removeDeploymentState(dir, 'r1');
    expect(await tree()).toEqual([
      'builds/d2/app/main.py',
      'builds/package.json',
      'logs/agent-a1.log',
      'logs/agent-a2.log',
      'logs/operator.log',
      'runs/r2.json',
      'runs/r2.json.123.abc.tmp',
      'services/a1.json',
      'services/a2.json',
    ]);
  });

  it("removes an agent's service record and log", async () => {
    await removeAgentState(dir, 'a1');
    expect(existsSync(join(dir, 'services/a1.json'))).toBe(false);
    expect(existsSync(join(dir, 'logs/agent-a1.log'))).toBe(false);
    expect(existsSync(join(dir, 'services/a2.json'))).toBe(true);
  });

  it('does nothing for an empty id (never the whole folder)', async () => {
    await removeBuild(dir, '');
    await removeDeploymentState(dir, '');
    await removeAgentState(dir, '');
    expect(await tree()).toHaveLength(14);
  });

  it('removes what belongs to no live agent or deployment, keeping what it does not recognise and the module boundary', async () => {
    const removed = await removeOrphans(dir, {
      agents: new Set(['a2']),
      deployments: new Set(['d2', 'r2']),
    });
    expect(removed.sort()).toEqual([
      'builds/d1',
      'logs/agent-a1.log',
      'logs/build-d1.log',
      'logs/run-r1.log',
      'runs/r1.json',
      'services/a1.json',
    ]);
    expect(await tree()).toEqual([
      'builds/d2/app/main.py',
      'builds/package.json',
      'logs/agent-a2.log',
      'logs/operator.log',
      'runs/r2.json',
      'runs/r2.json.123.abc.tmp',
      'services/a2.json',
    ]);
  });

  it("removes a deleted agent's socket directories, and every one on start", async () => {
    const [a1, a2] = [newSocketDir(dir, 'a1'), newSocketDir(dir, 'a2')];
    expect(a1).toMatch(/\/sockets\/[0-9a-f]{12}-[0-9a-f]{8}$/);
    await touch(
      join(a1, 'app.sock').slice(dir.length + 1),
      join(a2, 'app.sock').slice(dir.length + 1),
    );
    const removed = await removeOrphans(dir, {
      agents: new Set(['a2']),
      deployments: new Set(['d1', 'd2', 'r1', 'r2']),
    });
    expect(removed.sort()).toEqual([
      'logs/agent-a1.log',
      'services/a1.json',
      a1.slice(dir.length + 1),
    ]);
    expect(existsSync(join(a2, 'app.sock'))).toBe(true);
    await removeSocketDirs(dir);
    expect(existsSync(join(dir, 'sockets'))).toBe(false);
  });

  it('copes with a directory that has no state yet', async () => {
    await rm(dir, { recursive: true, force: true });
    expect(await removeOrphans(dir, { agents: new Set(), deployments: new Set() })).toEqual([]);
  });
});

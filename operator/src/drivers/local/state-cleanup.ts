/**
 * Removing what the local driver keeps on disk once nothing needs it. Under
 * the driver's directory:
 *
 *   builds/<deploymentId>/     a deployment's code, dependencies and build record
 *   builds/package.json        the module-type boundary (state-files.ts), kept
 *   runs/<runId>.json          a run's record
 *   services/<agentId>.json    what an agent's service should be serving
 *   logs/<kind>-<id>.log       a child process's output (agent-, run-, build-)
 *   sockets/<agent tag>-<8 hex>/ the Unix socket one service process listens on
 *
 * A build goes when its deployment is released (superseded beyond the kept
 * versions, or failed) or deleted; a run's record and log when the run is
 * deleted; an agent's service record and log when the agent is deleted; a
 * socket directory when its service stops. On start, anything whose agent or
 * deployment no longer exists goes too, and every socket directory (no
 * service outlives the operator that started it).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { LiveObjects } from '../driver.js';
import { MODULE_BOUNDARY } from './state-files.js';

const remove = (path: string) => rm(path, { recursive: true, force: true, maxRetries: 3 });

/** Where one deployment's build lives. */
export function buildDirOf(dir: string, deploymentId: string): string {
  return join(dir, 'builds', deploymentId);
}

/**
 * An agent's short tag in socket directory names: a Unix socket's path is at most 107 bytes,
 * too few for a state directory, an agent's UUID and a name of its own.
 */
function socketTag(agentId: string): string {
  return createHash('sha256').update(agentId).digest('hex').slice(0, 12);
}

/** A new socket directory for one service process of agent `agentId` (not yet created). */
export function newSocketDir(dir: string, agentId: string): string {
  return join(dir, 'sockets', `${socketTag(agentId)}-${randomBytes(4).toString('hex')}`);
}

/** Removes every socket directory: on start, all are left by services that have ended. */
export async function removeSocketDirs(dir: string): Promise<void> {
  await remove(join(dir, 'sockets'));
}

/** Removes a deployment's build directory. */
export async function removeBuild(dir: string, deploymentId: string): Promise<void> {
  if (!deploymentId) return;
  await remove(buildDirOf(dir, deploymentId));
}

/** Removes everything kept for a deployment or run: its build, its run record, its logs. */
export async function removeDeploymentState(dir: string, deploymentId: string): Promise<void> {
  if (!deploymentId) return;
  await Promise.all([
    removeBuild(dir, deploymentId),
    remove(join(dir, 'runs', `${deploymentId}.json`)),
    remove(join(dir, 'logs', `run-${deploymentId}.log`)),
    remove(join(dir, 'logs', `build-${deploymentId}.log`)),
  ]);
}

/** Removes everything kept for an agent itself: its service record and its service's log. */
export async function removeAgentState(dir: string, agentId: string): Promise<void> {
  if (!agentId) return;
  await Promise.all([
    remove(join(dir, 'services', `${agentId}.json`)),
    remove(join(dir, 'logs', `agent-${agentId}.log`)),
  ]);
}

async function entries(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** The id an entry of `builds/`, `runs/`, `services/` or `logs/` belongs to, and of what. */
function ownerOf(
  folder: 'builds' | 'runs' | 'services' | 'logs',
  name: string,
): { kind: 'agent' | 'deployment'; id: string } | null {
  switch (folder) {
    case 'builds':
      return name === MODULE_BOUNDARY ? null : { kind: 'deployment', id: name };
    case 'runs':
      return name.endsWith('.json') ? { kind: 'deployment', id: name.slice(0, -5) } : null;
    case 'services':
      return name.endsWith('.json') ? { kind: 'agent', id: name.slice(0, -5) } : null;
    case 'logs': {
      const match = /^(agent|run|build)-(.+)\.log$/.exec(name);
      if (!match) return null;
      return { kind: match[1] === 'agent' ? 'agent' : 'deployment', id: match[2] ?? '' };
    }
  }
}

/**
 * Removes every build, record and log whose agent or deployment is not in
 * `live`; returns the paths removed (relative to `dir`). Files it does not
 * recognise are left alone, and so are records being written (`*.tmp`).
 */
export async function removeOrphans(dir: string, live: LiveObjects): Promise<string[]> {
  const removed: string[] = [];
  for (const folder of ['builds', 'runs', 'services', 'logs'] as const) {
    for (const name of await entries(join(dir, folder))) {
      const owner = ownerOf(folder, name);
      if (!owner || !owner.id) continue;
      const alive = owner.kind === 'agent' ? live.agents : live.deployments;
      if (alive.has(owner.id)) continue;
      await remove(join(dir, folder, name));
      removed.push(`${folder}/${name}`);
    }
  }
  const liveTags = new Set([...live.agents].map(socketTag));
  for (const name of await entries(join(dir, 'sockets'))) {
    const tag = /^([0-9a-f]{12})-[0-9a-f]{8}$/.exec(name)?.[1];
    if (!tag || liveTags.has(tag)) continue;
    await remove(join(dir, 'sockets', name));
    removed.push(`sockets/${name}`);
  }
  return removed;
}

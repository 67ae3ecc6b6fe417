/**
 * The single-machine platform for a benchmark or a test: every process real,
 * on free loopback ports, in a new temporary directory that `stop()` removes
 * again. `npm start` uses startPlatform directly, with its fixed ports and
 * `.dev/`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../common/ports.js';
import { startPlatform, type Platform, type PlatformOptions } from './platform.js';

/** A platform in a directory of its own. */
export interface ScratchPlatform extends Platform {
  dir: string;
}

/**
 * Starts the platform on free ports in a new directory named after `name`;
 * `options` override the defaults (agents.localhost, etcd not fsynced).
 */
export async function startScratchPlatform(
  name: string,
  options: Partial<Omit<PlatformOptions, 'dir'>> = {},
): Promise<ScratchPlatform> {
  const dir = await mkdtemp(join(tmpdir(), `svc-${name}-`));
  try {
    const platform = await startPlatform({
      dir,
      apiPort: await freePort(),
      edgePort: await freePort(),
      vectorsPort: await freePort(),
      enginePort: await freePort(),
      agentDomain: 'agents.localhost',
      durable: false,
      ...options,
    });
    return {
      ...platform,
      dir,
      stop: async () => {
        await platform.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

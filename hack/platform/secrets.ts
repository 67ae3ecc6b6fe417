/**
 * The platform's own secrets, generated on the first start and kept in its
 * state directory: each in a file of its own, mode 0600, reused by every later
 * start (so tokens already handed out and the engine's clients stay valid).
 * Processes get the file's path (`<NAME>_FILE`), not the value; neither is
 * ever written to `.dev/env`.
 */
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateSecret, secretWeakness } from '../../common/secrets.js';

/** A secret and the file it is kept in. */
export interface KeptSecret {
  path: string;
  value: string;
}

/** The secrets the platform's processes are started with. */
export interface PlatformSecrets {
  /** `SVC_INTERNAL_SECRET` of the API server and the operator. */
  internalSecret: KeptSecret;
  /** `SVC_ENGINE_API_KEY` of the engine and the API server (the vector gateway) only. */
  engineApiKey: KeptSecret;
}

/** Reads the secrets kept in `dir`, generating the missing ones. */
export async function platformSecrets(dir: string): Promise<PlatformSecrets> {
  const kept = async (path: string) => ({ path, value: await keptSecret(path) });
  return {
    internalSecret: await kept(join(dir, 'internal-secret')),
    engineApiKey: await kept(join(dir, 'engine-api-key')),
  };
}

/**
 * The secret in the file at `path`, created with a new random one when
 * missing. A file someone made weaker than 0600 is narrowed back; one holding
 * a guessable value is refused rather than used.
 */
export async function keptSecret(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const secret = generateSecret();
    // `wx`: two starts racing never overwrite each other's secret; the loser reads the winner's.
    try {
      await writeFile(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
      return secret;
    } catch (raced) {
      if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw raced;
      text = await readFile(path, 'utf8');
    }
  }
  if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);
  const secret = text.trim();
  const weakness = secretWeakness(secret);
  if (weakness) {
    throw new Error(`the secret in ${path} ${weakness}; delete the file to have a new one made`);
  }
  return secret;
}

/**
 * The user's stored profiles: `$XDG_CONFIG_HOME/svc/config.json` (or
 * `~/.config/svc/config.json`), written with mode 0600 in a 0700 directory
 * since it holds API keys. One profile per account or environment; `current`
 * is the one used when none is named.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** One account on one platform. */
export interface Profile {
  api_url: string;
  vectors_url?: string | undefined;
  api_key: string;
}

/** The file's content. */
export interface ConfigFile {
  current: string | null;
  profiles: Record<string, Profile>;
}

/** Where the file is, for the environment `env`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'svc', 'config.json');
}

/** The stored profiles; an empty set when there is no file yet. */
export async function readConfig(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { current: null, profiles: {} };
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<ConfigFile>;
  return { current: parsed.current ?? null, profiles: parsed.profiles ?? {} };
}

/** Writes the profiles readable by the user alone (through a temporary file, so a crash leaves the old one). */
export async function writeConfig(path: string, config: ConfigFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

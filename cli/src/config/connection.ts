/**
 * Which platform and key a command uses, from the first place that names
 * them: an option (`--api-url`, `--vectors-url`), the environment
 * (`SVC_API_URL`, `SVC_VECTORS_URL`, `SVC_API_KEY`), the profile (`--profile`,
 * `SVC_PROFILE`, else the stored current one), the `.dev/env` of a
 * single-machine platform (`npm start`) in this directory or one above it,
 * and last the single-machine defaults. Keys never come from an option, so
 * they stay out of shell history.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readEnvValue } from '../../../common/env-file.js';
import { configPath, readConfig, type Profile } from './config-file.js';

/** Where each setting came from, for `svc whoami`. */
export type Source = 'option' | 'environment' | 'profile' | '.dev/env' | 'default' | 'none';

/** A resolved connection. */
export interface Connection {
  apiUrl: string;
  vectorsUrl: string;
  apiKey: string | undefined;
  profile: string | null;
  sources: { apiUrl: Source; vectorsUrl: Source; apiKey: Source };
  /** The `.dev/env` file read, when one was. */
  devEnvPath: string | null;
}

/** The global options that bear on the connection. */
export interface ConnectionOptions {
  apiUrl?: string | undefined;
  vectorsUrl?: string | undefined;
  profile?: string | undefined;
}

/** The single-machine platform's addresses (README: `npm start`). */
export const DEFAULT_API_URL = 'http://127.0.0.1:8000';
/** The vector plane beside {@link DEFAULT_API_URL}. */
export const DEFAULT_VECTORS_URL = 'http://127.0.0.1:8001';

/** The nearest `.dev/env` from `dir` upwards, or null. */
export async function findDevEnv(dir: string): Promise<{ path: string; text: string } | null> {
  for (let current = dir; ; current = dirname(current)) {
    const path = join(current, '.dev', 'env');
    try {
      return { path, text: await readFile(path, 'utf8') };
    } catch {
      // Not here; look one level up.
    }
    if (dirname(current) === current) return null;
  }
}

/** Resolves the connection for `options` in the environment `env`, from the directory `cwd`. */
export async function resolveConnection(
  options: ConnectionOptions,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
  /** False for `svc login`, which creates the profile it names. */
  profileMustExist = true,
): Promise<Connection> {
  const config = await readConfig(configPath(env));
  const profileName = options.profile ?? env.SVC_PROFILE ?? config.current;
  let profile: Profile | undefined;
  if (profileName) {
    profile = config.profiles[profileName];
    if (!profile && profileMustExist && (options.profile || env.SVC_PROFILE))
      throw new Error(`No profile named ${profileName}: run svc login --profile ${profileName}`);
  }
  const devEnv = await findDevEnv(cwd);
  const fromDevEnv = (key: string) => (devEnv ? readEnvValue(devEnv.text, key) : undefined);

  const pick = (
    option: string | undefined,
    envKey: string,
    fromProfile: string | undefined,
    fallback: string | undefined,
  ): [string | undefined, Source] => {
    if (option) return [option, 'option'];
    if (env[envKey]) return [env[envKey], 'environment'];
    if (fromProfile) return [fromProfile, 'profile'];
    const dev = fromDevEnv(envKey);
    if (dev) return [dev, '.dev/env'];
    return fallback ? [fallback, 'default'] : [undefined, 'none'];
  };
  const [apiUrl, apiUrlSource] = pick(
    options.apiUrl,
    'SVC_API_URL',
    profile?.api_url,
    DEFAULT_API_URL,
  );
  const [vectorsUrl, vectorsUrlSource] = pick(
    options.vectorsUrl,
    'SVC_VECTORS_URL',
    profile?.vectors_url,
    DEFAULT_VECTORS_URL,
  );
  const [apiKey, apiKeySource] = pick(undefined, 'SVC_API_KEY', profile?.api_key, undefined);
  return {
    apiUrl: apiUrl as string,
    vectorsUrl: vectorsUrl as string,
    apiKey,
    profile: profile ? (profileName ?? null) : null,
    sources: { apiUrl: apiUrlSource, vectorsUrl: vectorsUrlSource, apiKey: apiKeySource },
    devEnvPath: devEnv?.path ?? null,
  };
}

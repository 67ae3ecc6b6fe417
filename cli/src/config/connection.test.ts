import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderEnv } from '../../../common/env-file.js';
import { configPath, readConfig, writeConfig } from './config-file.js';
import { DEFAULT_API_URL, resolveConnection } from './connection.js';

let home: string;
let project: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'svc-conn-'));
  project = join(home, 'clone', 'examples', 'app');
  mkdirSync(project, { recursive: true });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const env = (extra: Record<string, string> = {}) => ({
  XDG_CONFIG_HOME: join(home, 'cfg'),
  ...extra,
});

function writeDevEnv() {
  mkdirSync(join(home, 'clone', '.dev'));
  writeFileSync(
    join(home, 'clone', '.dev', 'env'),
    renderEnv({
      SVC_API_URL: 'http://dev:8000',
      SVC_VECTORS_URL: 'http://dev:8001',
      SVC_API_KEY: "svc_live_d'ev",
    }),
  );
}

describe('resolveConnection', () => {
  it('uses the single-machine defaults and no key when nothing is set', async () => {
    const conn = await resolveConnection({}, env(), project);
    expect(conn).toMatchObject({ apiUrl: DEFAULT_API_URL, apiKey: undefined, profile: null });
    expect(conn.sources).toEqual({ apiUrl: 'default', vectorsUrl: 'default', apiKey: 'none' });
  });

  it('picks up the .dev/env of a clone from a directory below it', async () => {
    writeDevEnv();
    const conn = await resolveConnection({}, env(), project);
    expect(conn).toMatchObject({
      apiUrl: 'http://dev:8000',
      vectorsUrl: 'http://dev:8001',
      apiKey: "svc_live_d'ev",
      devEnvPath: join(home, 'clone', '.dev', 'env'),
    });
  });

  it('prefers the profile to .dev/env, the environment to the profile, and an option to both', async () => {
    writeDevEnv();
    await writeConfig(configPath(env()), {
      current: 'prod',
      profiles: { prod: { api_url: 'https://prod', api_key: 'svc_live_prod' } },
    });
    expect(await resolveConnection({}, env(), project)).toMatchObject({
      apiUrl: 'https://prod',
      apiKey: 'svc_live_prod',
      vectorsUrl: 'http://dev:8001',
      profile: 'prod',
    });
    const fromEnv = await resolveConnection(
      {},
      env({ SVC_API_URL: 'http://env', SVC_API_KEY: 'svc_test_env' }),
      project,
    );
    expect(fromEnv).toMatchObject({ apiUrl: 'http://env', apiKey: 'svc_test_env' });
    expect(fromEnv.sources).toMatchObject({ apiUrl: 'environment', apiKey: 'environment' });
    const fromOption = await resolveConnection(
      { apiUrl: 'http://opt' },
      env({ SVC_API_URL: 'http://env' }),
      project,
    );
    expect(fromOption).toMatchObject({ apiUrl: 'http://opt', sources: { apiUrl: 'option' } });
  });

  it('refuses a named profile that does not exist, except for login', async () => {
    await expect(resolveConnection({ profile: 'nope' }, env(), project)).rejects.toThrow(
      'No profile named nope',
    );
    await expect(resolveConnection({}, env({ SVC_PROFILE: 'nope' }), project)).rejects.toThrow(
      'No profile named nope',
    );
    await expect(
      resolveConnection({ profile: 'nope' }, env(), project, false),
    ).resolves.toMatchObject({ profile: null });
  });
});

describe('config file', () => {
  it('is written readable by the user alone and read back', async () => {
    const path = configPath(env());
    await writeConfig(path, { current: 'a', profiles: { a: { api_url: 'u', api_key: 'k' } } });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await readConfig(path)).toEqual({
      current: 'a',
      profiles: { a: { api_url: 'u', api_key: 'k' } },
    });
  });
});

import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { secretWeakness } from '../../common/secrets.js';
import { keptSecret, platformSecrets } from './secrets.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-secrets-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('platform secrets', () => {
  it('generates two different strong secrets on the first start, in files of mode 0600', async () => {
    const first = await platformSecrets(dir);
    expect(first.internalSecret.path).toBe(join(dir, 'internal-secret'));
    expect(first.engineApiKey.path).toBe(join(dir, 'engine-api-key'));
    expect(first.internalSecret.value).not.toBe(first.engineApiKey.value);
    for (const { path, value } of [first.internalSecret, first.engineApiKey]) {
      expect(secretWeakness(value)).toBeUndefined();
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect((await readFile(path, 'utf8')).trim()).toBe(value);
    }
  });

  it('reuses them on every later start', async () => {
    const first = await platformSecrets(dir);
    expect(await platformSecrets(dir)).toEqual(first);
  });

  it('narrows a file left readable by others back to 0600', async () => {
    const path = join(dir, 'internal-secret');
    const value = await keptSecret(path);
    await chmod(path, 0o644);
    expect(await keptSecret(path)).toBe(value);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('refuses a file holding a guessable secret', async () => {
    const path = join(dir, 'internal-secret');
    await writeFile(path, 'dev-only-internal-secret\n', { mode: 0o600 });
    await expect(keptSecret(path)).rejects.toThrow(
      /internal-secret contains the well-known value .*delete the file/,
    );
  });
});

import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  ENCRYPTION_KEY_NAME,
  encryptionConfiguration,
  ensureEncryptionConfig,
} from './encryption.js';

interface Parsed {
  apiVersion: string;
  kind: string;
  resources: {
    resources: string[];
    providers: { secretbox?: { keys: { name: string; secret: string }[] }; identity?: object }[];
  }[];
}

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-encryption-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe('ensureEncryptionConfig', () => {
  it('writes an EncryptionConfiguration for Secrets with a random 32-byte secretbox key, identity last', async () => {
    const path = await ensureEncryptionConfig(join(dir, 'encryption-config.yaml'));
    const config = parse(await readFile(path, 'utf8')) as Parsed;
    expect(config.apiVersion).toBe('apiserver.config.k8s.io/v1');
    expect(config.kind).toBe('EncryptionConfiguration');
    expect(config.resources).toHaveLength(1);
    const [secrets] = config.resources;
    expect(secrets!.resources).toEqual(['secrets']);
    expect(secrets!.providers).toHaveLength(2);
    const keys = secrets!.providers[0]!.secretbox!.keys;
    expect(keys).toHaveLength(1);
    expect(keys[0]!.name).toBe(ENCRYPTION_KEY_NAME);
    expect(Buffer.from(keys[0]!.secret, 'base64')).toHaveLength(32);
    expect(Buffer.from(keys[0]!.secret, 'base64').toString('base64')).toBe(keys[0]!.secret);
    expect(secrets!.providers[1]).toEqual({ identity: {} });
  });

  it('creates the file with mode 0600 under a permissive umask', async () => {
    const previous = process.umask(0);
    try {
      const path = await ensureEncryptionConfig(join(dir, 'encryption-config.yaml'));
      expect(await modeOf(path)).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });

  it('keeps the key of an existing file and narrows a wider mode back to 0600', async () => {
    const path = join(dir, 'encryption-config.yaml');
    await ensureEncryptionConfig(path);
    const first = await readFile(path, 'utf8');
    await chmod(path, 0o644);
    await ensureEncryptionConfig(path);
    expect(await readFile(path, 'utf8')).toBe(first);
    expect(await modeOf(path)).toBe(0o600);
  });

  it('gives two directories different keys', async () => {
    const a = await readFile(await ensureEncryptionConfig(join(dir, 'a.yaml')), 'utf8');
    const b = await readFile(await ensureEncryptionConfig(join(dir, 'b.yaml')), 'utf8');
    expect(a).not.toBe(b);
  });

  it('settles starts racing on a new file on one key and leaves no draft behind', async () => {
    const path = join(dir, 'encryption-config.yaml');
    await Promise.all(Array.from({ length: 8 }, () => ensureEncryptionConfig(path)));
    const kept = await readFile(path, 'utf8');
    await ensureEncryptionConfig(path);
    expect(await readFile(path, 'utf8')).toBe(kept);
    expect(await readdir(dir)).toEqual(['encryption-config.yaml']);
  });
});

describe('encryptionConfiguration', () => {
  it('refuses a key that is not 32 bytes', () => {
    expect(() => encryptionConfiguration(Buffer.alloc(16))).toThrow('32 bytes');
  });
});

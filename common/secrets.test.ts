import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { generateSecret, requireSecret, secretWeakness } from './secrets.js';

/** Values an attacker would try first, each of which must be refused. */
const GUESSABLE_SECRETS = [
  '',
  'dev-only-internal-secret',
  'secret',
  'changeme',
  'password',
  'admin',
  'dev-only-internal-secret-but-longer-than-32-chars',
  'changemechangemechangemechangeme',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  'abcdefghijklmnopqrstuvwxyz0123456789',
  '0123456789012345678901234567890123456789',
  'Tr0ub4dor&3',
];

describe('secrets', () => {
  it.each(GUESSABLE_SECRETS)('refuses %j', (value) => {
    expect(secretWeakness(value)).toBeDefined();
    expect(() => requireSecret('SVC_INTERNAL_SECRET', { SVC_INTERNAL_SECRET: value })).toThrow(
      /^SVC_INTERNAL_SECRET /,
    );
  });

  it('refuses a missing variable, naming it and how to make one', () => {
    expect(() => requireSecret('SVC_ENGINE_API_KEY', {})).toThrow(
      /SVC_ENGINE_API_KEY is not set: .*openssl rand -base64 32/,
    );
  });

  it('reads the secret from the file <NAME>_FILE names, trimmed, and checks it the same way', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-secret-file-'));
    try {
      const value = generateSecret();
      writeFileSync(join(dir, 'good'), `${value}\n`);
      writeFileSync(join(dir, 'weak'), 'dev-only-internal-secret\n');
      expect(requireSecret('S', { S_FILE: join(dir, 'good') })).toBe(value);
      expect(() => requireSecret('S', { S_FILE: join(dir, 'weak') })).toThrow(
        /^S contains the well-known value/,
      );
      expect(() => requireSecret('S', { S_FILE: join(dir, 'missing') })).toThrow(
        /^S_FILE names .*missing, which cannot be read/,
      );
      expect(() => requireSecret('S', { S: value, S_FILE: join(dir, 'good') })).toThrow(
        /^S and S_FILE are both set/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('accepts generated secrets and random hex of 16 bytes or more', () => {
    for (let i = 0; i < 200; i++) {
      const generated = generateSecret();
      expect(generated).toHaveLength(43);
      expect(secretWeakness(generated)).toBeUndefined();
      expect(secretWeakness(randomBytes(16).toString('hex'))).toBeUndefined();
    }
    const value = generateSecret();
    expect(requireSecret('S', { S: value })).toBe(value);
  });
});

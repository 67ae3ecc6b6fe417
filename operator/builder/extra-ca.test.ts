import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extraCaEnvironment } from './extra-ca.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIBextra\n-----END CERTIFICATE-----';
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-extra-ca-'));
  dirs.push(dir);
  return dir;
}

describe('extraCaEnvironment', () => {
  it('bundles the public CAs with the extra ones for pip, and gives Node the extra ones', async () => {
    const dir = await scratch();
    const system = join(dir, 'system.crt');
    await writeFile(system, '-----BEGIN CERTIFICATE-----\nMIIBpublic\n-----END CERTIFICATE-----\n');
    const env = await extraCaEnvironment(`\n${PEM}\n\n`, join(dir, 'out'), system);
    expect(Object.keys(env).sort()).toEqual([
      'NODE_EXTRA_CA_CERTS',
      'PIP_CERT',
      'REQUESTS_CA_BUNDLE',
      'SSL_CERT_FILE',
    ]);
    expect(await readFile(env.NODE_EXTRA_CA_CERTS!, 'utf8')).toBe(`${PEM}\n`);
    const bundle = await readFile(env.PIP_CERT!, 'utf8');
    expect(bundle).toBe(
      `-----BEGIN CERTIFICATE-----\nMIIBpublic\n-----END CERTIFICATE-----\n${PEM}\n`,
    );
    expect(env.REQUESTS_CA_BUNDLE).toBe(env.PIP_CERT);
  });

  it('changes nothing when no certificate is given', async () => {
    const dir = await scratch();
    await expect(extraCaEnvironment(undefined, dir)).resolves.toEqual({});
    await expect(extraCaEnvironment('  \n', dir)).resolves.toEqual({});
  });

  it('refuses a value that holds no PEM certificate', async () => {
    const dir = await scratch();
    await expect(extraCaEnvironment('not a certificate', dir)).rejects.toThrow(/no PEM/);
  });
});

/**
 * Certificates and keys for the local kube-apiserver: a CA, a serving
 * certificate for 127.0.0.1/localhost signed by it, the service-account
 * signing key pair, a random admin bearer token, and the key that encrypts
 * Secrets in etcd (./encryption.ts). Kept in one directory and reused when
 * present, so a restarted platform keeps trusting the same CA and reading the
 * same Secrets; a second region's API is given the same directory.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureEncryptionConfig } from './encryption.js';

const run = promisify(execFile);

/** Paths and values of the local control plane's credentials. */
export interface Pki {
  dir: string;
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
  tokenFile: string;
  adminToken: string;
  /** The `EncryptionConfiguration` every kube-apiserver on this etcd is started with. */
  encryptionConfig: string;
}

/** Creates the credentials in `dir` unless they already exist there. */
export async function ensurePki(dir: string): Promise<Pki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const pki: Pki = {
    dir,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    servingCert: join(dir, 'apiserver.crt'),
    servingKey: join(dir, 'apiserver.key'),
    serviceAccountKey: join(dir, 'sa.key'),
    serviceAccountPub: join(dir, 'sa.pub'),
    tokenFile: join(dir, 'tokens.csv'),
    adminToken: '',
    encryptionConfig: join(dir, 'encryption-config.yaml'),
  };
  if (!existsSync(pki.caCert)) await makeCertificates(pki);
  if (!existsSync(pki.serviceAccountKey)) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await writeFile(pki.serviceAccountKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
      mode: 0o600,
    });
    await writeFile(pki.serviceAccountPub, publicKey.export({ type: 'spki', format: 'pem' }));
  }
  if (!existsSync(pki.tokenFile)) {
    const token = randomBytes(24).toString('hex');
    // Static token file: token,user,uid,"group". system:masters bypasses RBAC.
    await writeFile(pki.tokenFile, `${token},svc-admin,svc-admin,"system:masters"\n`, {
      mode: 0o600,
    });
  }
  await ensureEncryptionConfig(pki.encryptionConfig);
  pki.adminToken = (await readFile(pki.tokenFile, 'utf8')).split(',')[0] ?? '';
  return pki;
}

/** openssl's arguments for a new P-256 key without a passphrase. */
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/**
 * Makes `<name>.key` and `<name>.crt` in the PKI directory: a new key and a certificate for
 * `subject` signed by the CA, with `extensions` (an openssl extfile's text) when given.
 */
export async function issueCertificate(
  pki: Pki,
  opts: { name: string; subject: string; extensions?: string },
): Promise<{ cert: string; key: string }> {
  const key = join(pki.dir, `${opts.name}.key`);
  const cert = join(pki.dir, `${opts.name}.crt`);
  const csr = join(pki.dir, `${opts.name}.csr`);
  await run('openssl', ['req', ...EC_KEY, '-keyout', key, '-out', csr, '-subj', opts.subject]);
  const ext = join(pki.dir, `${opts.name}.ext`);
  if (opts.extensions !== undefined) await writeFile(ext, opts.extensions);
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    pki.caCert,
    '-CAkey',
    pki.caKey,
    '-CAcreateserial',
    '-out',
    cert,
    '-days',
    '3650',
    ...(opts.extensions !== undefined ? ['-extfile', ext] : []),
  ]);
  return { cert, key };
}

async function makeCertificates(pki: Pki): Promise<void> {
  await run('openssl', [
    'req',
    '-x509',
    ...EC_KEY,
    '-keyout',
    pki.caKey,
    '-out',
    pki.caCert,
    '-days',
    '3650',
    '-subj',
    '/CN=svc-local-ca',
  ]);
  await issueCertificate(pki, {
    name: 'apiserver',
    subject: '/CN=kube-apiserver',
    extensions:
      'subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.96.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\n',
  });
}

/**
 * Certificates a build trusts besides the public ones ($SVC_EXTRA_CA_CERTS, PEM: the chart's
 * `agents.buildCACertificates`), for the dependency installs it runs: pip and npm behind a
 * TLS-intercepting proxy, or an internal package index. pip takes one bundle that replaces its
 * own (the image's public CAs and the extra ones together); Node adds NODE_EXTRA_CA_CERTS to its.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Debian's bundle of the public CAs (the builder image's ca-certificates). */
export const SYSTEM_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

/**
 * Writes the extra certificates and a bundle of the public ones with them under `dir`, and
 * returns the environment that makes pip, npm, Node and Python's ssl trust them (empty when
 * `pem` is unset or blank).
 */
export async function extraCaEnvironment(
  pem: string | undefined,
  dir: string,
  systemBundle = SYSTEM_BUNDLE,
): Promise<Record<string, string>> {
  if (!pem?.trim()) return {};
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error('SVC_EXTRA_CA_CERTS holds no PEM certificate');
  await mkdir(dir, { recursive: true });
  const extra = join(dir, 'extra-ca.pem');
  const bundle = join(dir, 'ca-bundle.pem');
  const text = `${pem.trim()}\n`;
  await writeFile(extra, text);
  const system = existsSync(systemBundle) ? await readFile(systemBundle, 'utf8') : '';
  await writeFile(bundle, `${system.trimEnd()}\n${text}`);
  return {
    NODE_EXTRA_CA_CERTS: extra,
    PIP_CERT: bundle,
    REQUESTS_CA_BUNDLE: bundle,
    SSL_CERT_FILE: bundle,
  };
}

/**
 * The kube-apiserver's client certificate for the kubelet's API (logs, exec, port-forward):
 * signed by the node's CA, in the group `system:masters`, so that the kubelet's webhook
 * authorization allows it. Made once per PKI directory.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Pki } from '../control-plane/pki.js';

const run = promisify(execFile);

/** Paths of the certificate and its key, made when missing. */
export async function kubeletClientCertificate(pki: Pki): Promise<{ cert: string; key: string }> {
  const cert = join(pki.dir, 'kubelet-client.crt');
  const key = join(pki.dir, 'kubelet-client.key');
  if (existsSync(cert) && existsSync(key)) return { cert, key };
  const csr = join(pki.dir, 'kubelet-client.csr');
  await run('openssl', [
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    csr,
    '-subj',
    '/O=system:masters/CN=kube-apiserver-kubelet-client',
  ]);
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
  ]);
  return { cert, key };
}

/**
 * The kube-apiserver's client certificate for the kubelet's API (logs, exec, port-forward):
 * signed by the node's CA, in the group `system:masters`, so that the kubelet's webhook
 * authorization allows it. Made once per PKI directory.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { issueCertificate, type Pki } from '../control-plane/pki.js';

/** Paths of the certificate and its key, made when missing. */
export async function kubeletClientCertificate(pki: Pki): Promise<{ cert: string; key: string }> {
  const cert = join(pki.dir, 'kubelet-client.crt');
  const key = join(pki.dir, 'kubelet-client.key');
  if (existsSync(cert) && existsSync(key)) return { cert, key };
  return issueCertificate(pki, {
    name: 'kubelet-client',
    subject: '/O=system:masters/CN=kube-apiserver-kubelet-client',
  });
}

/** Writes a kubeconfig for the local kube-apiserver's admin token. */
import { readFile, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { Pki } from './pki.js';

/** Renders a kubeconfig (context `svc-local`) for `server` and writes it to `path` (mode 0600). */
export async function writeKubeconfig(path: string, server: string, pki: Pki): Promise<void> {
  const ca = (await readFile(pki.caCert)).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'svc-local', cluster: { server, 'certificate-authority-data': ca } }],
    users: [{ name: 'svc-admin', user: { token: pki.adminToken } }],
    contexts: [
      {
        name: 'svc-local',
        context: { cluster: 'svc-local', user: 'svc-admin', namespace: 'default' },
      },
    ],
    'current-context': 'svc-local',
  };
  await writeFile(path, stringify(config), { mode: 0o600 });
}

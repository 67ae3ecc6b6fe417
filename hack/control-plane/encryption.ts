/**
 * Encryption at rest for the local kube-apiserver: an `EncryptionConfiguration`
 * that has it encrypt Secrets with secretbox (XSalsa20-Poly1305) before they
 * reach etcd. The key is made on the first start and kept in its file (mode
 * 0600) from then on: a new key would leave every Secret already written
 * unreadable. Every kube-apiserver on the same etcd (a second region's too)
 * must be given the same file.
 */
import { randomBytes } from 'node:crypto';
import { chmod, link, readFile, rm, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';

/** The name of the key in the configuration; etcd values carry it (`k8s:enc:secretbox:v1:<name>:`). */
export const ENCRYPTION_KEY_NAME = 'key1';

/** The configuration for a 32-byte `key`. */
export function encryptionConfiguration(key: Buffer): string {
  if (key.length !== 32) throw new Error(`a secretbox key is 32 bytes, not ${key.length}`);
  return stringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'EncryptionConfiguration',
    resources: [
      {
        resources: ['secrets'],
        providers: [
          { secretbox: { keys: [{ name: ENCRYPTION_KEY_NAME, secret: key.toString('base64') }] } },
          // Reads Secrets written in clear before encryption was turned on; never used to write.
          { identity: {} },
        ],
      },
    ],
  });
}

/**
 * Makes sure `path` holds an encryption configuration: writes one with a new
 * random key when the file is missing, keeps the one there otherwise, and
 * narrows its mode to 0600 either way (whatever the umask was). Returns `path`.
 */
export async function ensureEncryptionConfig(path: string): Promise<string> {
  const exists = await readFile(path).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    },
  );
  if (!exists) {
    // Written whole under another name, then linked into place: a start racing this one
    // never reads half a file, and the first link wins (the loser keeps the winner's key).
    const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      await writeFile(draft, encryptionConfiguration(randomBytes(32)), { mode: 0o600, flag: 'wx' });
      await chmod(draft, 0o600);
      await link(draft, path).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
    } finally {
      await rm(draft, { force: true });
    }
  }
  await chmod(path, 0o600);
  return path;
}

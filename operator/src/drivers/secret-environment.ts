/**
 * The environment variables a Kubernetes Secret of secrets gives an agent
 * process: each data key decoded, a derived data key (a secret key longer
 * than Kubernetes keeps, see crds/src/secret-data-keys.ts) under the secret
 * key the Secret names for it, one it does not name left out.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { ANNOTATIONS, isDerivedDataKey, parseJsonAnnotation } from '../../../crds/src/index.js';

/** The variables `secret` holds, by name, decoded. */
export function secretEnvironment(secret: V1Secret): Record<string, string> {
  const names = parseJsonAnnotation<Record<string, string>>(
    secret.metadata?.annotations?.[ANNOTATIONS.secretEnvNames],
    {},
  );
  const env: Record<string, string> = {};
  for (const [dataKey, base64] of Object.entries(secret.data ?? {})) {
    const name = isDerivedDataKey(dataKey) ? names[dataKey] : dataKey;
    if (name) env[name] = Buffer.from(base64, 'base64').toString('utf8');
  }
  return env;
}

/** Well-known paths of the repository, resolved from this file so any working directory works. */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** Where `npm run tools` puts the binaries built from the Go module proxy. */
export const toolsBin = join(repoRoot, '.tools', 'bin');
/** State of the single-machine platform: kubeconfig, env file, data, logs. */
export const devDir = join(repoRoot, '.dev');
/** The CRD manifests. */
export const crdsDir = join(repoRoot, 'crds');

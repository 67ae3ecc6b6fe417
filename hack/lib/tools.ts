/** Locates the binaries built by `npm run tools`. */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { toolsBin } from './paths.js';

/** The binaries `hack/build-tools.sh` produces. */
export type ToolName =
  | 'etcd'
  | 'kube-apiserver'
  | 'kube-controller-manager'
  | 'kubectl'
  | 'ferretdb'
  | 'helm'
  | 'kwok'
  | 'kube-scheduler'
  // The real node's (hack/build-tools.sh --node)
  | 'kubelet'
  | 'kube-proxy'
  | 'containerd'
  | 'ctr'
  | 'runc'
  | 'coredns'
  | 'kube-network-policies';

/** The path of a built tool; throws a message that says how to build it when it is missing. */
export function toolPath(name: ToolName): string {
  const path = join(toolsBin, name);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(
      `${path} is missing: run \`npm run tools\` to build it from the Go module proxy`,
    );
  }
  return path;
}

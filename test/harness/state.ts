/** What global setup started, shared with global teardown (both run in jest's parent process). */
import type { ControlPlane } from '../../hack/control-plane/index.js';

/** Environment variables through which tests find the components. */
export const HARNESS_ENV = {
  dir: 'SVC_TEST_DIR',
  kubeconfig: 'SVC_TEST_KUBECONFIG',
  mongoUri: 'SVC_TEST_MONGODB_URI',
  apiServerUrl: 'SVC_TEST_KUBE_APISERVER_URL',
  /** The etcd a second region's kube-apiserver shares (./regions.ts). */
  etcdUrl: 'SVC_TEST_ETCD_URL',
} as const;

/** The running components. */
export interface Running {
  dir: string;
  controlPlane: ControlPlane;
}

const KEY = Symbol.for('svc.test.harness');

/** Records what setup started. */
export function setRunning(running: Running): void {
  (globalThis as Record<symbol, unknown>)[KEY] = running;
}

/** What setup started, if it got that far. */
export function getRunning(): Running | undefined {
  return (globalThis as Record<symbol, unknown>)[KEY] as Running | undefined;
}

/**
 * The harness behind jest's global setup and teardown: boots the real components once per run (etcd,
 * kube-apiserver, kube-controller-manager, FerretDB) on random free loopback
 * ports in a temporary directory, and hands their addresses to the test
 * workers through `SVC_TEST_*` environment variables (read them with
 * `harness()` from ./env.ts); teardown stops them, pass or fail. A test that
 * needs a second region starts one on this etcd itself (./regions.ts).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '@jest/types';
import { startControlPlane } from '../../hack/control-plane/index.js';
import { usesSharedComponents } from './needs.js';
import { getRunning, HARNESS_ENV, setRunning } from './state.js';

/**
 * Whether any integration test file this run selects uses the shared components. A selection
 * jest makes from outside the paths (changed files, related tests) counts as using them.
 */
export async function selectionUsesComponents(
  globalConfig: Config.GlobalConfig,
  projectConfig: Config.ProjectConfig,
): Promise<boolean> {
  if (globalConfig.onlyChanged || globalConfig.findRelatedTests || globalConfig.changedSince)
    return true;
  const patterns = globalConfig.testPathPatterns;
  if (!patterns?.isSet?.()) return true;
  const selected = patterns.toExecutor({ rootDir: globalConfig.rootDir });
  const ignored = projectConfig.testPathIgnorePatterns.map((p) => new RegExp(p));
  const testDir = join(projectConfig.rootDir, 'test');
  const files = (await readdir(testDir, { recursive: true }))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(testDir, f))
    .filter((f) => selected.isMatch(f) && !ignored.some((re) => re.test(f)));
  return files.some((f) => usesSharedComponents(f));
}

/** Starts the components and publishes their addresses. */
export async function bootComponents(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-test-'));
  const started = Date.now();
  const cp = await startControlPlane({ dir, durable: false, controllerManager: true });
  process.stdout.write(
    `\nharness: components up in ${((Date.now() - started) / 1000).toFixed(1)} s (${dir})\n`,
  );
  process.env[HARNESS_ENV.dir] = dir;
  process.env[HARNESS_ENV.kubeconfig] = cp.kubeconfigPath;
  process.env[HARNESS_ENV.mongoUri] = cp.mongoUri;
  process.env[HARNESS_ENV.apiServerUrl] = cp.apiServerUrl;
  process.env[HARNESS_ENV.etcdUrl] = cp.etcdUrl;
  setRunning({ dir, controlPlane: cp });
}

/** Stops every component boot started and removes its directory. */
export async function stopComponents(): Promise<void> {
  const running = getRunning();
  if (!running) return;
  await running.controlPlane.stop();
  await rm(running.dir, { recursive: true, force: true });
}

// What the integration tests share and nobody rebuilds during a run: the web dashboard's
// bundle (dashboard/dist, served by the platform tests), the Python runner's venv
// (.tools/runner-venv) and Bun (.tools/bun). `npm test` makes them first (hack/ensure.mjs);
// global setup checks them once more, so a jest started by hand works too, and makes the
// dashboard again only when its sources are newer than its bundle. Tests only read them.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildDashboard } from '../../dashboard/build.mjs';

/** The newest modification time of the files under `dir`. */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/** Makes what is missing or stale; `root` is the repository. */
export async function ensureSharedBuilds(root) {
  const bundle = join(root, 'dashboard', 'dist', 'index.html');
  const sources = Math.max(
    newest(join(root, 'dashboard', 'src')),
    statSync(join(root, 'dashboard', 'build.mjs')).mtimeMs,
  );
  if (!existsSync(bundle) || statSync(bundle).mtimeMs < sources) await buildDashboard();
  for (const script of ['runner-venv.mjs', 'bun.mjs']) {
    // Each is a no-op while what it makes is in place.
    const result = spawnSync(process.execPath, [join(root, 'hack', script)], { cwd: root });
    if (result.status !== 0)
      throw new Error(`hack/${script} failed: ${result.stderr?.toString().slice(-2000)}`);
  }
}

#!/usr/bin/env node
// Installs what `npm start` and `npm test` need on a fresh machine, skipping
// whatever is already in place: the npm packages (when node_modules is missing
// or older than package-lock.json; `npm install --no-save` rather than `npm ci`,
// which refuses a lock that lacks optional platform packages the registry does
// not serve, such as @swc/core's macOS and Windows builds) and the binaries built from the Go
// module proxy (hack/build-tools.sh skips up-to-date ones), the Python virtual
// environments (each skipped while its requirements are unchanged) and the Bun that runs
// `bun` agents (hack/bun.mjs, skipped while the pinned version is in place). Plain Node with
// no dependencies, because it runs before node_modules exists.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function run(command, args) {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.error) {
    console.error(`ensure: could not run ${command}: ${result.error.message}`);
    process.exit(1);
  }
  if (result.status !== 0) {
    console.error(`ensure: \`${command} ${args.join(' ')}\` failed (exit ${result.status})`);
    process.exit(result.status ?? 1);
  }
  return ((Date.now() - started) / 1000).toFixed(1);
}

function npmPackagesStale() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(marker)) return true;
  return statSync(join(root, 'package-lock.json')).mtimeMs > statSync(marker).mtimeMs;
}

if (npmPackagesStale()) {
  console.log('ensure: installing npm packages ...');
  const seconds = run('npm', ['install', '--no-save', '--no-audit', '--no-fund']);
  console.log(`ensure: npm packages installed in ${seconds} s`);
}
run('bash', [join('hack', 'build-tools.sh')]);
// Python environments: the runners' (uvicorn) and the engine's differential tests' (qdrant-edge-py).
run(process.execPath, [join('hack', 'runner-venv.mjs')]);
run(process.execPath, [join('hack', 'python', 'ensure-venv.mjs')]);
run(process.execPath, [join('hack', 'bun.mjs')]);
// The agent sandbox's bwrap and pasta (Debian packages), for the local driver.
run(process.execPath, [join('hack', 'sandbox-tools.mjs')]);
// The web dashboard's static files (dashboard/dist/, never committed), served under /dashboard/.
run(process.execPath, [join('dashboard', 'build.mjs')]);

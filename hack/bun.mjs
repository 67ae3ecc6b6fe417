#!/usr/bin/env node
// Installs the Bun that serves `bun` agents on this machine into .tools/bun (the binary is then
// .tools/bun/bin/bun), skipped while the pinned version is there. Bun publishes each platform's
// binary as an npm package, @oven/bun-<os>-<arch>[-musl][-baseline]; this fetches that one package
// with `npm pack` (the registry's integrity check included) and unpacks it. Not the `bun` package
// as a devDependency: its postinstall script must run to put the binary in place (npm 11 already
// warns about install scripts that package.json's `allowScripts` does not approve), it picks the
// AVX2-less `-baseline` build by downloading from a hard-coded registry URL, and 107 MB more in
// node_modules is paid by every install, images included. Plain Node with no dependencies, like
// the rest of `hack/ensure.mjs`.
// Usage: node hack/bun.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Bun agents run on; bump it here (the runner tests then run against the new one). */
const BUN_VERSION = '1.4.5';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, '.tools', 'bun');

/** True when the CPU lacks AVX2, which Bun's default x64 builds need (they die with SIGILL). */
function lacksAvx2() {
  if (process.platform === 'linux') {
    try {
      return !/^flags\s*:.*\bavx2\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'));
    } catch {
      return true;
    }
  }
  const probe = spawnSync('sysctl', ['-n', 'machdep.cpu.leaf7_features'], { encoding: 'utf8' });
  return !/\bAVX2\b/.test(probe.stdout ?? '');
}

/** The npm package holding this machine's Bun binary, or null where Bun publishes none. */
function bunPackage() {
  const os = { linux: 'linux', darwin: 'darwin' }[process.platform];
  const arch = { x64: 'x64', arm64: 'aarch64' }[process.arch];
  if (!os || !arch) return null;
  const musl = os === 'linux' && !process.report?.getReport().header.glibcVersionRuntime;
  const baseline = arch === 'x64' && lacksAvx2();
  return `@oven/bun-${os}-${arch}${musl ? '-musl' : ''}${baseline ? '-baseline' : ''}`;
}

/** Runs a command and returns its trimmed stdout; throws with its stderr when it fails. */
function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    const detail = result.error?.message ?? `exit ${result.status}: ${result.stderr?.trim()}`;
    throw new Error(
      `\`${command} ${args.join(' ')}\` failed (${detail.split('\n', 2).join(' | ')})`,
    );
  }
  return result.stdout.trim();
}

/** `<package>@<version>` of the Bun in .tools/bun, or null when there is none. */
function installed() {
  try {
    const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
    return existsSync(join(target, 'bin', 'bun')) ? `${manifest.name}@${manifest.version}` : null;
  } catch {
    return null;
  }
}

const pkg = bunPackage();
if (!pkg) {
  // Not fatal: everything else still works; `bun` deployments fail saying Bun is missing.
  console.warn(`bun: Bun publishes no binary for ${process.platform}-${process.arch}; skipped.`);
} else if (installed() !== `${pkg}@${BUN_VERSION}`) {
  const started = Date.now();
  console.log(`bun: installing ${pkg}@${BUN_VERSION} into ${relative(root, target)} ...`);
  // Unpacked beside the target, so the final rename stays on one file system.
  mkdirSync(dirname(target), { recursive: true });
  const scratch = mkdtempSync(join(dirname(target), 'bun-install-'));
  try {
    const tarball = run('npm', [
      'pack',
      `${pkg}@${BUN_VERSION}`,
      '--pack-destination',
      scratch,
      '--loglevel=error',
    ]);
    const unpacked = join(scratch, 'package');
    run('tar', ['-xzf', join(scratch, tarball), '-C', scratch]);
    // The binary must start on this CPU: a wrong variant fails here, not at a user's deploy.
    const version = run(join(unpacked, 'bin', 'bun'), ['--version']);
    if (version !== BUN_VERSION) throw new Error(`${pkg}@${BUN_VERSION} says it is ${version}`);
    rmSync(target, { recursive: true, force: true });
    try {
      renameSync(unpacked, target);
    } catch (error) {
      // Another install (npm start and npm test at once) got there first: fine if it is this one.
      if (installed() !== `${pkg}@${BUN_VERSION}`) throw error;
    }
    console.log(
      `bun: Bun ${BUN_VERSION} installed in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } catch (error) {
    console.error(`bun: installing ${pkg}@${BUN_VERSION} failed: ${error.message}`);
    process.exitCode = 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

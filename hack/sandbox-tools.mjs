#!/usr/bin/env node
// The Debian packages the platform and its tests use beyond Node, Go and Python: the tools the
// local driver sandboxes agents with, bwrap (bubblewrap) and pasta (passt), curl and jq,
// which the README's walkthrough (run by test/platform) uses, and chromium, the browser the
// dashboard's tests drive (test/dashboard). Installed with apt-get when missing and this runs as root on a Debian-like
// machine; otherwise it says what to install, and the operator runs agents of one account only
// until they are there (operator/src/drivers/local/agent-launcher.ts). Plain Node, no packages.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const wanted = {
  bwrap: 'bubblewrap',
  pasta: 'passt',
  curl: 'curl',
  jq: 'jq',
  chromium: 'chromium',
};

function onPath(name) {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => existsSync(join(dir, name)));
}

const missing = Object.entries(wanted).filter(([tool]) => !onPath(tool));
if (missing.length === 0) {
  console.log(`sandbox-tools: ${Object.keys(wanted).join(', ')} are installed`);
  process.exit(0);
}
const packages = missing.map(([, pkg]) => pkg);
if (process.getuid?.() !== 0 || !onPath('apt-get')) {
  console.warn(
    `sandbox-tools: ${missing.map(([t]) => t).join(' and ')} missing; install ${packages.join(' ')} ` +
      '(Debian/Ubuntu: sudo apt-get install ' +
      `${packages.join(' ')}); without bwrap and pasta agents cannot be sandboxed`,
  );
  process.exit(0);
}
console.log(`sandbox-tools: installing ${packages.join(' ')} with apt-get ...`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
const install = () =>
  spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
    stdio: 'inherit',
    env,
  }).status;
if (install() !== 0) {
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  if (install() !== 0) {
    console.error(`sandbox-tools: apt-get could not install ${packages.join(' ')}`);
    process.exit(1);
  }
}
console.log('sandbox-tools: installed');

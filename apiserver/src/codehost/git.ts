/**
 * Real `git`, run with the account's token: `ls-remote` to check it and a
 * shallow fetch of one commit to deploy it. The token travels only in an
 * `http.extraHeader` given through the environment (GIT_CONFIG_*), never on
 * a command line or in a URL, so neither `ps` nor git's own messages show it;
 * messages are scrubbed of it anyway before they go anywhere. Git reads no
 * user or system configuration, never prompts, and speaks only HTTP(S).
 */
import { execFile, spawn } from 'node:child_process';
import { isIP } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArchiveLimits } from '../../../crds/src/index.js';
import { ArchiveLimitError, ArchiveMeter } from '../../../common/archive-limits.js';
import type { AddressPin } from './host-address.js';

/** What git authenticates with: HTTP Basic, user name and token. */
export interface GitCredentials {
  username: string;
  token: string;
}

/** A git command that failed; the message is git's own, without the token. */
export class GitError extends Error {}

/** How long a fetch may take. */
const GIT_TIMEOUT_MS = 120_000;
/** How long the status check's ls-remote may take: someone is waiting on the answer. */
const LS_REMOTE_TIMEOUT_MS = 20_000;

/**
 * The environment of a git command using `credentials` (none for an anonymous
 * one), connecting to the host of `pin` at its checked address only.
 */
export function gitEnvironment(
  credentials: GitCredentials | null,
  home: string,
  pin: AddressPin | null = null,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: 'true',
    GIT_ALLOW_PROTOCOL: 'http:https',
    LANG: 'C',
  };
  const config: Array<[string, string]> = [
    ['http.lowSpeedLimit', '1000'],
    ['http.lowSpeedTime', '30'],
    // The token header would follow a redirect to wherever it points.
    ['http.followRedirects', 'false'],
  ];
  // An address literal needs no pin (and curl would misread an IPv6 one).
  if (pin && isIP(pin.hostname) === 0) {
    const address = pin.family === 6 ? `[${pin.address}]` : pin.address;
    config.push(['http.curloptResolve', `${pin.hostname}:${pin.port}:${address}`]);
  }
  if (credentials) {
    const basic = Buffer.from(`${credentials.username}:${credentials.token}`).toString('base64');
    config.push(['http.extraHeader', `Authorization: Basic ${basic}`]);
  }
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** util-linux's prlimit, which bounds the files a fetch writes; null where the machine lacks it. */
const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((path) => existsSync(path)) ?? null;

/** The signal the kernel sends a process writing past its file-size limit, as git reports it. */
const FILE_SIZE_SIGNAL = /died of signal 25|signal 25\b|SIGXFSZ/;

/** A fetch wrote past its file-size bound: the pack is larger than the tree may be. */
export class FetchTooLargeError extends GitError {}

/**
 * Runs git with `args` in `cwd`; resolves with stdout, rejects with a scrubbed
 * GitError. With `maxFileBytes`, no file git writes may grow past it (the
 * kernel's RLIMIT_FSIZE, through prlimit): a FetchTooLargeError when one would.
 */
export function runGit(
  args: string[],
  options: {
    cwd: string;
    credentials: GitCredentials | null;
    pin?: AddressPin | null;
    timeoutMs?: number;
    maxFileBytes?: number;
  },
): Promise<string> {
  const bounded = options.maxFileBytes !== undefined && PRLIMIT !== null;
  const command = bounded ? (PRLIMIT as string) : 'git';
  const argv = bounded ? [`--fsize=${options.maxFileBytes}`, '--', 'git', ...args] : args;
  return new Promise((resolve, reject) => {
    execFile(
      command,
      argv,
      {
        cwd: options.cwd,
        env: gitEnvironment(options.credentials, options.cwd, options.pin ?? null),
        timeout: options.timeoutMs ?? GIT_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const said = (stderr || err.message).trim().split('\n').slice(-3).join(' ');
        const message = scrub(`git ${args[0]} failed: ${said}`, options.credentials);
        const tooLarge = bounded && (err.signal === 'SIGXFSZ' || FILE_SIZE_SIGNAL.test(said));
        reject(tooLarge ? new FetchTooLargeError(message) : new GitError(message));
      },
    );
  });
}

/** Lists the branches of `repository` (at the address `pin`): proves the token reads it. */
export async function lsRemote(
  repository: string,
  credentials: GitCredentials,
  pin: AddressPin,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-git-'));
  try {
    await runGit(['ls-remote', '--heads', '--', repository], {
      cwd: dir,
      credentials,
      pin,
      timeoutMs: LS_REMOTE_TIMEOUT_MS,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Checks out exactly `commit` of `repository` into the empty directory
 * `dir`, shallow: `git init`, `git fetch --depth 1 <url> <sha>`, checkout.
 * A server that refuses fetching by id gets the branch's tip instead, which
 * must then be that commit. The commit's tree is measured against `limits`
 * before anything is checked out (ArchiveLimitError past one). Git connects
 * to the repository's host at the address `pin` only.
 */
export async function checkoutCommit(
  dir: string,
  repository: string,
  branch: string,
  commit: string,
  credentials: GitCredentials,
  limits: ArchiveLimits,
  pin: AddressPin,
): Promise<void> {
  const opts = { cwd: dir, credentials, pin };
  await runGit(['init', '--quiet'], opts);
  // The pack (or a loose object) is compressed: past the whole tree's limit, it cannot fit.
  const fetching = { ...opts, maxFileBytes: fetchFileBound(limits) };
  const fetch = (refspec: string) =>
    runGit(['fetch', '--quiet', '--no-tags', '--depth', '1', '--', repository, refspec], fetching);
  try {
    try {
      await fetch(commit);
    } catch (err) {
      if (err instanceof FetchTooLargeError) throw err;
      await fetch(`refs/heads/${branch}`);
      const tip = (await runGit(['rev-parse', 'FETCH_HEAD'], opts)).trim();
      if (tip !== commit) {
        throw new GitError(`Commit ${commit} is not the tip of ${branch} any more (it is ${tip}).`);
      }
    }
  } catch (err) {
    if (err instanceof FetchTooLargeError) {
      throw new ArchiveLimitError('unpacked_bytes', limits.maxUnpackedBytes);
    }
    throw err;
  }
  await checkTreeWithin(dir, commit, limits);
  await runGit(['-c', 'advice.detachedHead=false', 'checkout', '--quiet', commit], opts);
}

/**
 * The largest file a fetch may write: the compressed pack of a tree within
 * `limits` is no larger than the tree (zlib adds a few bytes per 16 KiB at
 * worst), plus headroom for git's headers.
 */
function fetchFileBound(limits: ArchiveLimits): number {
  return Math.ceil(limits.maxUnpackedBytes * 1.01) + 1024 * 1024;
}

/**
 * What a tenant's commit may put on this machine's disk: the repository is
 * the tenant's, so a "git bomb" (a few trees naming each other a million
 * times over, in a pack of kilobytes) must be refused before checkout, after
 * at most one limit's worth of listing. Counts every entry of `commit`'s
 * tree (files, directories, links and submodules, as an upload's entries are
 * counted) and its files' sizes, from the objects fetched into `dir`; throws
 * ArchiveLimitError as soon as one passes a limit, GitError when git cannot
 * list the tree.
 */
async function checkTreeWithin(dir: string, commit: string, limits: ArchiveLimits): Promise<void> {
  const meter = new ArchiveMeter(limits);
  const git = spawn('git', ['ls-tree', '-r', '-t', '-l', '-z', '--full-tree', commit], {
    cwd: dir,
    env: gitEnvironment(null, dir),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  git.stderr.setEncoding('utf8');
  git.stderr.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
  git.stdout.setEncoding('utf8');
  const exited = new Promise<number | null>((resolve, reject) => {
    git.on('error', reject);
    git.on('close', resolve);
  });
  let rest = '';
  try {
    for await (const chunk of git.stdout as AsyncIterable<string>) {
      const records = (rest + chunk).split('\0');
      rest = records.pop() ?? '';
      for (const record of records) countRecord(meter, record);
    }
  } catch (err) {
    git.kill('SIGKILL');
    await exited.catch(() => undefined);
    throw err;
  }
  const code = await exited;
  if (code !== 0) {
    throw new GitError(`git ls-tree failed: ${stderr.trim().split('\n').slice(-2).join(' ')}`);
  }
}

/** `<mode> <type> <object> <size>\t<path>`: the size is `-` for anything but a file. */
function countRecord(meter: ArchiveMeter, record: string): void {
  const tab = record.indexOf('\t');
  if (tab < 0) return;
  const size = record.slice(0, tab).trim().split(/\s+/)[3];
  meter.entry(record.slice(tab + 1), size === undefined || size === '-' ? 0 : Number(size));
}

function scrub(text: string, credentials: GitCredentials | null): string {
  if (!credentials || credentials.token === '') return text;
  const basic = Buffer.from(`${credentials.username}:${credentials.token}`).toString('base64');
  return text.split(credentials.token).join('[token]').split(basic).join('[token]');
}

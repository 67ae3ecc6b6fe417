// @ts-check
/**
 * The agent's built code, fetched by the runner itself before it starts it (in a cluster pod).
 * A pod's runner finds $SVC_ARTIFACT_URL set (the API server's internal route of the deployment's
 * build artifact, with a read token) and an empty app directory: it downloads the artifact (a
 * tar.gz of regular files, as the build step packs it: operator/builder/pack.ts) into the
 * directory, then runs the agent as it would locally. Done here rather than in an init container
 * of the builder image, a wake from zero no longer waits for a second container to start and for
 * the kubelet to notice it ended (up to a second). A restarted container finds the code there
 * (the directory is the pod's volume) and does not fetch again. The URL leaves the environment
 * before any user code runs. Runs under Node and Bun, with their own modules only.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

const RETRY_FOR_MS = 60_000;
const RETRYABLE = new Set([502, 503, 504]);
const DONE = join('.svc', 'fetched');

/**
 * Where an archive entry goes; throws for a name that would leave the app directory.
 * @param {string} appDir
 * @param {string} name
 */
function entryPath(appDir, name) {
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (name.startsWith('/') || parts.length === 0 || parts.includes('..'))
    throw new Error(`artifact entry ${JSON.stringify(name)} is outside the app directory`);
  return join(appDir, ...parts);
}

/**
 * A NUL-terminated header field as text.
 * @param {Buffer} block
 * @param {number} start
 * @param {number} length
 */
function field(block, start, length) {
  const raw = block.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString('utf8');
}

/**
 * The `path` of a pax extended header's records (`<len> path=<value>\n`), if any.
 * @param {Buffer} data
 */
function paxPath(data) {
  let at = 0;
  let path;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const length = Number(data.subarray(at, space).toString('ascii'));
    if (space < 0 || !Number.isInteger(length) || length <= 0) break;
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (record.slice(0, eq) === 'path') path = record.slice(eq + 1);
    at += length;
  }
  return path;
}

/**
 * Writes the regular files and directories of a ustar/pax archive, read chunk by chunk from
 * `chunks` (uncompressed), into `appDir`; any other kind of entry (links, devices) is refused.
 * Holds at most one header and one chunk in memory (an artifact's dependencies can be large).
 * @param {AsyncIterable<Buffer>} chunks
 * @param {string} appDir
 */
export async function unpackTar(chunks, appDir) {
  let pending = Buffer.alloc(0);
  /** What the bytes after a header are: a file's (fd), a pax header's (collected), skipped. */
  /** @type {{ left: number, pad: number, fd?: number, pax?: Buffer[] } | null} */
  let body = null;
  /** @type {string | undefined} */
  let nextPath;
  let ended = false;

  /** @param {Buffer} header */
  const begin = (header) => {
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0)
      throw new Error('the artifact is not a tar archive');
    const type = String.fromCharCode(header[156] ?? 0);
    const pad = (512 - (size % 512)) % 512;
    if (type === 'x') return { left: size, pad, pax: [] };
    if (type === 'g') return { left: size, pad };
    const prefix = field(header, 345, 155);
    const name =
      nextPath ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    nextPath = undefined;
    const path = entryPath(appDir, name);
    if (type === '5') {
      mkdirSync(path, { recursive: true });
      return { left: size, pad };
    }
    if (type !== '0' && type !== '\0')
      throw new Error(`artifact entry ${JSON.stringify(name)} is not a regular file`);
    mkdirSync(dirname(path), { recursive: true });
    const mode = parseInt(field(header, 100, 8).trim() || '644', 8) & 0o755;
    return { left: size, pad, fd: openSync(path, 'w', mode) };
  };

  for await (const chunk of chunks) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (!ended) {
      if (body) {
        const take = Math.min(body.left, pending.length);
        const part = pending.subarray(0, take);
        if (body.fd !== undefined) writeSync(body.fd, part);
        else body.pax?.push(Buffer.from(part));
        body.left -= take;
        pending = pending.subarray(take);
        if (body.left > 0) break;
        if (pending.length < body.pad) break;
        pending = pending.subarray(body.pad);
        if (body.fd !== undefined) closeSync(body.fd);
        if (body.pax) nextPath = paxPath(Buffer.concat(body.pax));
        body = null;
        continue;
      }
      if (pending.length < 512) break;
      const header = pending.subarray(0, 512);
      pending = pending.subarray(512);
      if (header.every((b) => b === 0)) ended = true;
      else body = begin(header);
    }
  }
  if (body) {
    if (body.fd !== undefined) closeSync(body.fd);
    throw new Error('the artifact ended in the middle of an entry');
  }
}

/** @param {string} appDir */
function emptyDirectory(appDir) {
  for (const entry of readdirSync(appDir))
    rmSync(join(appDir, entry), { recursive: true, force: true });
}

/**
 * Fetches $SVC_ARTIFACT_URL into `appDir` when set and not fetched yet; drops it from the
 * environment. Retries 502/503/504 and unreachable for a minute (the API server restarting).
 * @param {string} appDir
 */
export async function fetchArtifact(appDir) {
  const url = process.env.SVC_ARTIFACT_URL;
  delete process.env.SVC_ARTIFACT_URL;
  if (!url || existsSync(join(appDir, DONE))) return;
  const deadline = Date.now() + RETRY_FOR_MS;
  for (let attempt = 0; ; attempt += 1) {
    emptyDirectory(appDir);
    let retryable = true;
    try {
      const res = await fetch(url);
      if (!res.ok) {
        retryable = RETRYABLE.has(res.status);
        throw new Error(`fetching the agent's code failed (${res.status})`);
      }
      if (!res.body) throw new Error("fetching the agent's code failed (no body)");
      await unpackTar(
        Readable.fromWeb(/** @type {import('node:stream/web').ReadableStream} */ (res.body)).pipe(
          createGunzip(),
        ),
        appDir,
      );
      mkdirSync(join(appDir, '.svc'), { recursive: true });
      writeFileSync(join(appDir, DONE), '');
      return;
    } catch (error) {
      // An unpacking error is not retried (the same archive would fail again).
      const unreachable = error instanceof TypeError; // fetch's network failure
      if (
        !(retryable && (unreachable || /failed \(5/.test(String(error)))) ||
        Date.now() >= deadline
      )
        throw error;
    }
    await new Promise((r) =>
      setTimeout(r, Math.min(250 * 2 ** attempt, 2_000, Math.max(deadline - Date.now(), 0))),
    );
  }
}

import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { fetchAndUnpack } from './builder.js';

let root: string;
let server: Server;
let url: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-volume-'));
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: unknown) => chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve) => tar.on('end', () => resolve()));
  tar.entry({ name: 'main.py' }, 'print(1)\n');
  tar.finalize();
  await ended;
  const body = gzipSync(Buffer.concat(chunks));
  server = createServer((_req, res) => res.end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/archive`;
});

afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(root, { recursive: true, force: true });
});

describe('fetchAndUnpack into a volume', () => {
  it("empties the directory it unpacks into but keeps it (a pod's emptyDir mount point cannot be removed)", async () => {
    const volume = join(root, 'workspace');
    await mkdir(join(volume, 'stale', 'deep'), { recursive: true });
    await writeFile(join(volume, 'old.txt'), 'from an earlier attempt');
    // A mode no new directory gets: a directory made again in its place would not have it.
    await chmod(volume, 0o1777);
    await fetchAndUnpack(url, volume, undefined, null, 0);
    expect((await stat(volume)).mode & 0o7777).toBe(0o1777);
    expect((await readdir(volume)).sort()).toEqual(['main.py']);
  });

  it('makes the directory when it does not exist yet', async () => {
    const fresh = join(root, 'new', 'app');
    await fetchAndUnpack(url, fresh, undefined, null, 0);
    expect(await readdir(fresh)).toEqual(['main.py']);
  });
});

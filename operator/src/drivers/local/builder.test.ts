import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { ArchiveLimitError } from '../../../../common/archive-limits.js';
import { fetchAndUnpack, relativeToCode, unpack } from './builder.js';
import { waitFor } from '../../../../test/harness/wait.js';

let dir: string;

/** A tar.gz of `files` (name -> bytes of zeros, or text). */
async function archive(files: Record<string, number | string>): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: unknown) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve) => tar.on('end', () => resolve()));
  for (const [name, content] of Object.entries(files))
    tar.entry({ name }, typeof content === 'number' ? Buffer.alloc(content) : content);
  tar.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'svc-unpack-')), 'app');
});

afterEach(async () => {
  await rm(join(dir, '..'), { recursive: true, force: true });
});

const limits = { maxUnpackedBytes: 1024 * 1024, maxEntries: 10, maxFileBytes: 512 * 1024 };

describe('unpack', () => {
  it('unpacks an archive within its limits', async () => {
    await unpack(
      Readable.from(await archive({ 'main.py': 'print(1)\n', 'lib/x.bin': 1000 })),
      dir,
      limits,
    );
    expect(readFileSync(join(dir, 'main.py'), 'utf8')).toBe('print(1)\n');
    expect(readFileSync(join(dir, 'lib/x.bin'))).toHaveLength(1000);
  });

  it('stops at the unpacked limit and removes what it wrote', async () => {
    const files = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}.bin`, 400_000]));
    const outcome = unpack(Readable.from(await archive(files)), dir, limits);
    await expect(outcome).rejects.toBeInstanceOf(ArchiveLimitError);
    await expect(outcome).rejects.toMatchObject({ limit: 'unpacked_bytes' });
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a file over the per-file limit, naming it, and leaves nothing', async () => {
    const outcome = unpack(
      Readable.from(await archive({ 'main.py': 'x', 'big.bin': 600 * 1024 })),
      dir,
      limits,
    );
    await expect(outcome).rejects.toMatchObject({ limit: 'file_bytes', path: 'big.bin' });
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses more entries than allowed, and leaves nothing', async () => {
    const files = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`e${i}`, 'x']));
    await expect(unpack(Readable.from(await archive(files)), dir, limits)).rejects.toMatchObject({
      limit: 'entries',
      allowed: 10,
    });
    expect(existsSync(dir)).toBe(false);
  });

  it('removes what it wrote when the archive is cut short', async () => {
    const whole = await archive({ 'a.bin': 100_000, 'b.bin': 100_000 });
    await expect(
      unpack(Readable.from([whole.subarray(0, whole.length - 40)]), dir, limits),
    ).rejects.toThrow();
    expect(existsSync(dir)).toBe(false);
  });
});

describe('relativeToCode', () => {
  const host = '/srv/svc/.dev/operator/builds/0b6f/app';
  const code = [host, '/app'];
  const platform = ['/srv/svc/.dev/operator', '/srv/svc'];

  it("names the agent's files relative to its code, wherever the code sits", () => {
    expect(relativeToCode(`File "/app/main.py", line 3`, code)).toBe('File "main.py", line 3');
    expect(relativeToCode(`open '${host}/lib/util.py' failed`, code, platform)).toBe(
      "open 'lib/util.py' failed",
    );
    expect(
      relativeToCode(
        'ERROR: file:///app (from -r requirements.txt (line 1)) does not appear to be a Python project',
        code,
      ),
    ).toBe('ERROR: . (from -r requirements.txt (line 1)) does not appear to be a Python project');
    expect(relativeToCode(`No such file or directory: '${host}'`, code)).toBe(
      "No such file or directory: '.'",
    );
  });

  it("hides the platform's own directories and leaves other paths alone", () => {
    expect(
      relativeToCode(
        'Bun is not installed at /srv/svc/.tools/bun/bin/bun; the log is /srv/svc/.dev/operator/logs/x.log',
        code,
        platform,
      ),
    ).toBe(
      'Bun is not installed at <platform>/.tools/bun/bin/bun; the log is <platform>/logs/x.log',
    );
    expect(
      relativeToCode('see /application/x and /apps and /usr/lib/python3', code, platform),
    ).toBe('see /application/x and /apps and /usr/lib/python3');
  });
});

describe('fetchAndUnpack', () => {
  /** A loopback port nothing listens on (yet). */
  async function freePort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    return port;
  }

  /** Serves `answer` on `port` until closed. */
  async function serve(port: number, answer: (res: ServerResponse) => void): Promise<Server> {
    const server = createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return server;
  }

  it('keeps trying while the API server is down, and unpacks once it is back', async () => {
    const port = await freePort();
    const body = await archive({ 'main.py': 'print(1)\n' });
    // The builder's fetches, counted as each is refused.
    const realFetch = globalThis.fetch;
    let refused = 0;
    let onRefused = () => {};
    const fetches = jest.spyOn(globalThis, 'fetch').mockImplementation((...args) => {
      const answer = realFetch(...args);
      answer.catch(() => {
        refused += 1;
        onRefused();
      });
      return answer;
    });
    let server: Server | undefined;
    const stop = new AbortController();
    try {
      const url = `http://127.0.0.1:${port}/archive`;
      const fetched = fetchAndUnpack(url, dir, stop.signal, limits);
      // Awaited below; a wait that fails first leaves its failure to the test.
      fetched.catch(() => undefined);
      // Down for a while (two attempts refused), then a proxy's 503, then the archive.
      await waitFor('two refused fetches of the archive', () => refused >= 2, {
        timeoutMs: 10_000,
        wakeOn: (changed) => {
          onRefused = changed;
          return () => (onRefused = () => {});
        },
        lastSeen: () => refused,
      });
      let answers = 0;
      server = await serve(port, (res) => {
        answers += 1;
        if (answers === 1) res.writeHead(503).end();
        else res.writeHead(200, { 'content-type': 'application/gzip' }).end(body);
      });
      await fetched;
      expect(answers).toBe(2);
      expect(readFileSync(join(dir, 'main.py'), 'utf8')).toBe('print(1)\n');
    } finally {
      stop.abort();
      fetches.mockRestore();
      if (server) await new Promise((resolve) => server!.close(resolve));
    }
  });

  it('fails at once on an answer that retrying cannot change, and after its deadline when down', async () => {
    let answers = 0;
    const server = await serve(await freePort(), (res) => {
      answers += 1;
      res.writeHead(404).end();
    });
    const { port } = server.address() as AddressInfo;
    try {
      await expect(
        fetchAndUnpack(`http://127.0.0.1:${port}/archive`, dir, undefined, limits),
      ).rejects.toThrow('Fetching /archive failed (404).');
      expect(answers).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const started = Date.now();
    await expect(
      fetchAndUnpack(`http://127.0.0.1:${await freePort()}/archive`, dir, undefined, limits, 500),
    ).rejects.toThrow('fetch failed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });
});

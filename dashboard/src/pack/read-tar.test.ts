import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFromTarGz } from './read-tar.js';
import { gzip, tarArchive } from './tar.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('readFromTarGz', () => {
  it("reads a root file of the dashboard's own archives", async () => {
    const archive = await gzip(
      tarArchive([
        { path: 'main.py', bytes: text('print(1)\n') },
        { path: 'sub/svc.yaml', bytes: text('runtime: wrong\n') },
        { path: 'svc.yaml', bytes: text('runtime: python3.12\n') },
      ]),
    );
    expect(await readFromTarGz(new Blob([archive as BlobPart]), 'svc.yaml')).toBe(
      'runtime: python3.12\n',
    );
    expect(await readFromTarGz(new Blob([archive as BlobPart]), 'missing.txt')).toBeNull();
  });

  it('reads ./svc.yaml from an archive GNU tar wrote with a long name before it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dash-read-tar-'));
    try {
      const deep = join(dir, 'p', 'a'.repeat(80), 'b'.repeat(80));
      mkdirSync(deep, { recursive: true });
      writeFileSync(join(deep, 'x.txt'), 'x'.repeat(700));
      writeFileSync(join(dir, 'p', 'svc.yaml'), 'type: job\n');
      execFileSync('tar', ['czf', join(dir, 'a.tgz'), '-C', join(dir, 'p'), '.']);
      const archive = new Blob([readFileSync(join(dir, 'a.tgz'))]);
      expect(await readFromTarGz(archive, 'svc.yaml')).toBe('type: job\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

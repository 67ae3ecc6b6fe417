import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzip, splitName, tarArchive } from './tar.js';

describe('tarArchive', () => {
  it('writes an archive that GNU tar extracts with contents and modes', async () => {
    const long = `${'d'.repeat(60)}/${'e'.repeat(60)}/file.txt`;
    const bytes = await gzip(
      tarArchive([
        { path: 'main.py', bytes: new TextEncoder().encode('print(1)\n') },
        { path: 'run.sh', bytes: new TextEncoder().encode('#!/bin/sh\n'), mode: 0o755 },
        { path: long, bytes: new Uint8Array(1000).fill(65) },
      ]),
    );
    const dir = mkdtempSync(join(tmpdir(), 'dash-tar-'));
    try {
      writeFileSync(join(dir, 'a.tgz'), bytes);
      execFileSync('tar', ['xzf', 'a.tgz'], { cwd: dir });
      expect(readFileSync(join(dir, 'main.py'), 'utf8')).toBe('print(1)\n');
      expect(statSync(join(dir, 'run.sh')).mode & 0o777).toBe(0o755);
      expect(readFileSync(join(dir, long), 'utf8')).toBe('A'.repeat(1000));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a path no prefix split fits', () => {
    expect(() => splitName('x'.repeat(300))).toThrow('too long');
  });
});

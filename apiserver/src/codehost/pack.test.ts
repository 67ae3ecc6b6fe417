import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { normaliseSubdirectory, packedPaths, packFiles } from './pack.js';

let repo: string;

const files: Record<string, string> = {
  'README.md': 'root',
  'app/main.py': 'x = 1',
  'app/.svcignore': 'docs/\n*.tmp\n!keep.tmp\n',
  'app/docs/guide.md': 'ignored by .svcignore',
  'app/scratch.tmp': 'ignored by pattern',
  'app/keep.tmp': 'kept by negation',
  'app/lib/.svcignore': 'local.txt\n',
  'app/lib/local.txt': 'ignored by the nested file',
  'app/lib/util.py': 'y = 2',
  'app/.env': 'built-in',
  'app/run.log': 'built-in',
  'app/node_modules/m.js': 'built-in',
  'app/venv/bin/python': 'built-in',
  'app/pkg/__pycache__/a.pyc': 'built-in',
  'app/.DS_Store': 'built-in',
};

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'svc-pack-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      env: { PATH: process.env.PATH, HOME: repo, GIT_CONFIG_NOSYSTEM: '1' },
    });
  git('init', '--quiet');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), content);
  }
  symlinkSync('/etc/passwd', join(repo, 'app', 'link'));
  git('add', '--all', '--force');
  git('-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '--quiet', '-m', 'x');
});

afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe('packedPaths', () => {
  it('leaves out what .svcignore files name (gitignore rules, nested files too) and the built-in exclusions', async () => {
    expect(await packedPaths(repo, 'app')).toEqual([
      '.svcignore',
      'keep.tmp',
      'lib/.svcignore',
      'lib/util.py',
      'link',
      'main.py',
    ]);
  });
});

describe('packFiles', () => {
  it('packs regular files only, rooted at the subdirectory', async () => {
    const archive = gunzipSync(await packFiles(join(repo, 'app'), await packedPaths(repo, 'app')));
    const names: string[] = [];
    for (let offset = 0; offset + 512 <= archive.length;) {
      const name = archive
        .subarray(offset, offset + 100)
        .toString('utf8')
        .replace(/\0.*$/s, '');
      if (name === '') break;
      names.push(name);
      const size = parseInt(archive.subarray(offset + 124, offset + 136).toString('ascii'), 8);
      offset += 512 + Math.ceil(size / 512) * 512;
    }
    expect(names).toEqual(['.svcignore', 'keep.tmp', 'lib/.svcignore', 'lib/util.py', 'main.py']);
  });
});

describe('normaliseSubdirectory', () => {
  it('normalises a subdirectory and refuses one that climbs out', () => {
    expect(normaliseSubdirectory('/app/')).toBe('app');
    expect(normaliseSubdirectory('./')).toBe('');
    expect(normaliseSubdirectory(null)).toBe('');
    expect(() => normaliseSubdirectory('app/../../x')).toThrow(/inside/);
  });
});

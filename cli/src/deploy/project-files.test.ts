import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { listProjectFiles } from './project-files.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-project-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

describe('listProjectFiles', () => {
  it('leaves out the built-in exclusions at any depth and does not enter excluded directories', async () => {
    write({
      'main.py': '',
      '.env': 'SECRET=1',
      '.git/config': '',
      'node_modules/x/index.js': '',
      'pkg/__pycache__/a.pyc': '',
      'pkg/venv/bin/python': '',
      'pkg/mod.py': '',
      'pkg/.DS_Store': '',
      'logs/run.log': '',
    });
    expect(await listProjectFiles(root)).toEqual({
      included: ['main.py', 'pkg/mod.py'],
      excluded: [
        '.env',
        '.git/',
        'logs/run.log',
        'node_modules/',
        'pkg/.DS_Store',
        'pkg/__pycache__/',
        'pkg/venv/',
      ],
    });
  });

  it('reads .svcignore in gitignore syntax: anchored and unanchored patterns, directories, negation', async () => {
    write({
      '.svcignore': '/build\n*.bin\n!keep.bin\ndocs/\n',
      'build/out.js': '',
      'src/build/kept.js': '',
      'a.bin': '',
      'keep.bin': '',
      'src/b.bin': '',
      'docs/index.md': '',
      'main.py': '',
    });
    expect(await listProjectFiles(root)).toEqual({
      included: ['.svcignore', 'keep.bin', 'main.py', 'src/build/kept.js'],
      excluded: ['a.bin', 'build/', 'docs/', 'src/b.bin'],
    });
  });

  it('applies a nested .svcignore to its own directory, relative to it', async () => {
    write({
      'sub/.svcignore': 'fixtures/\n/local.txt\n',
      'sub/fixtures/big.json': '',
      'sub/local.txt': '',
      'sub/deeper/local.txt': '',
      'fixtures/top.json': '',
    });
    const files = await listProjectFiles(root);
    expect(files.included).toEqual(['fixtures/top.json', 'sub/.svcignore', 'sub/deeper/local.txt']);
    expect(files.excluded).toEqual(['sub/fixtures/', 'sub/local.txt']);
  });

  it('lets a deeper .svcignore re-include what an upper one excluded', async () => {
    write({
      '.svcignore': '*.csv\n',
      'data/.svcignore': '!wanted.csv\n',
      'data/wanted.csv': '',
      'data/other.csv': '',
    });
    expect((await listProjectFiles(root)).included).toEqual([
      '.svcignore',
      'data/.svcignore',
      'data/wanted.csv',
    ]);
  });

  it('packs no symbolic links', async () => {
    write({ 'main.py': '' });
    symlinkSync('/etc/passwd', join(root, 'passwd'));
    expect((await listProjectFiles(root)).included).toEqual(['main.py']);
  });
});

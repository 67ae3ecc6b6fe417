import { describe, expect, it } from '@jest/globals';
import { ignoreFileDir, selectFiles, stripCommonRoot } from './select-files.js';

describe('selectFiles', () => {
  it("leaves out the contract's built-in exclusions", () => {
    const s = selectFiles(
      [
        'main.py',
        '.env',
        'debug.log',
        '.git/HEAD',
        'node_modules/x/index.js',
        'pkg/__pycache__/a.pyc',
      ],
      new Map(),
    );
    expect(s.included).toEqual(['main.py']);
    expect(s.excluded).toEqual(['.env', '.git/', 'debug.log', 'node_modules/', 'pkg/__pycache__/']);
  });

  it('applies a .svcignore to its own directory and below, a deeper one re-including', () => {
    const s = selectFiles(
      [
        '.svcignore',
        'data/model.bin',
        'data/keep.txt',
        'src/.svcignore',
        'src/a.tmp',
        'src/b.tmp',
        'b.tmp',
      ],
      new Map([
        ['', 'data/model.bin\n*.tmp\n'],
        ['src', '!b.tmp\n'],
      ]),
    );
    expect(s.included).toEqual(['.svcignore', 'data/keep.txt', 'src/.svcignore', 'src/b.tmp']);
    expect(s.excluded).toEqual(['b.tmp', 'data/model.bin', 'src/a.tmp']);
  });

  it('excludes a whole directory a pattern names', () => {
    const s = selectFiles(['build/out/a.js', 'main.py'], new Map([['', 'build/\n']]));
    expect(s).toEqual({ included: ['main.py'], excluded: ['build/'] });
  });
});

describe('helpers', () => {
  it('finds the directory of an ignore file', () => {
    expect(ignoreFileDir('.svcignore')).toBe('');
    expect(ignoreFileDir('a/b/.svcignore')).toBe('a/b');
    expect(ignoreFileDir('a/b.svcignore')).toBeNull();
  });

  it("drops a folder picker's common first segment", () => {
    expect(stripCommonRoot(['proj/main.py', 'proj/a/b'])).toEqual(['main.py', 'a/b']);
    expect(stripCommonRoot(['main.py', 'svc.yaml'])).toEqual(['main.py', 'svc.yaml']);
  });
});

import { describe, expect, it } from '@jest/globals';
import { guessProvider, HostUrlError, normaliseHostUrl, resolveRepository } from './host-url.js';

const strict = { allowLoopbackHttp: false };
const tests = { allowLoopbackHttp: true };

describe('normaliseHostUrl', () => {
  it('keeps an https host and drops the trailing slash', () => {
    expect(normaliseHostUrl('https://git.example.com/scm/', strict)).toBe(
      'https://git.example.com/scm',
    );
  });

  it('refuses plain http, even to loopback, unless configuration allows loopback', () => {
    expect(() => normaliseHostUrl('http://127.0.0.1:3000', strict)).toThrow(HostUrlError);
    expect(normaliseHostUrl('http://127.0.0.1:3000', tests)).toBe('http://127.0.0.1:3000');
    expect(() => normaliseHostUrl('http://git.example.com', tests)).toThrow(HostUrlError);
  });

  it('refuses credentials, queries, other schemes and non-URLs', () => {
    expect(() => normaliseHostUrl('https://u:p@github.com', strict)).toThrow(/credentials/);
    expect(() => normaliseHostUrl('https://github.com/?a=1', strict)).toThrow(/query/);
    expect(() => normaliseHostUrl('file:///tmp/repo', tests)).toThrow(/https/);
    expect(() => normaliseHostUrl('github.com', strict)).toThrow(/Not a URL/);
  });
});

describe('resolveRepository', () => {
  it('joins a path to the host', () => {
    expect(resolveRepository('https://github.com', 'acme/app.git', strict)).toBe(
      'https://github.com/acme/app.git',
    );
  });

  it('accepts a full URL under the host and refuses one elsewhere', () => {
    expect(
      resolveRepository('https://h.example/scm', 'https://h.example/scm/a/b.git', strict),
    ).toBe('https://h.example/scm/a/b.git');
    expect(() =>
      resolveRepository('https://h.example/scm', 'https://h.example/x/b', strict),
    ).toThrow(/code host/);
    expect(() => resolveRepository('https://github.com', 'https://evil.example/a', strict)).toThrow(
      /code host/,
    );
  });

  it('refuses paths that climb out', () => {
    expect(() => resolveRepository('https://github.com', 'acme/../x', strict)).toThrow(/owner/);
  });
});

describe('guessProvider', () => {
  it('knows the public hosts and calls anything else a plain Git server', () => {
    expect(guessProvider('https://github.com')).toBe('github');
    expect(guessProvider('https://gitlab.com')).toBe('gitlab');
    expect(guessProvider('https://codeberg.org')).toBe('gitea');
    expect(guessProvider('https://git.internal')).toBe('git');
  });
});

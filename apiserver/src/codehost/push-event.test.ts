import { describe, expect, it } from '@jest/globals';
import { comparableRepository, readDelivery } from './push-event.js';

const sha = 'a'.repeat(40);

describe('readDelivery', () => {
  it("reads GitHub's push: delivery id, branch, commit and repository addresses", () => {
    const body = Buffer.from(
      JSON.stringify({
        ref: 'refs/heads/main',
        after: sha,
        repository: { clone_url: 'https://github.com/a/b.git', html_url: 'https://github.com/a/b' },
      }),
    );
    const d = readDelivery({ 'x-github-event': 'push', 'x-github-delivery': 'd-1' }, body);
    expect(d).toEqual({
      deliveryId: 'd-1',
      bodyDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      event: 'push',
      branch: 'main',
      commit: sha,
      repositoryUrls: ['https://github.com/a/b.git', 'https://github.com/a/b'],
    });
  });

  it("reads GitLab's Push Hook and names a deleted branch's commit null", () => {
    const body = Buffer.from(
      JSON.stringify({
        ref: 'refs/heads/dev',
        after: '0'.repeat(40),
        project: { git_http_url: 'x' },
      }),
    );
    const d = readDelivery({ 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': 'u' }, body);
    expect(d.event).toBe('push');
    expect(d.commit).toBeNull();
    expect(d.repositoryUrls).toEqual(['x']);
  });

  it('falls back to the hash of the body for the delivery id, and leaves tags without a branch', () => {
    const body = Buffer.from(JSON.stringify({ ref: 'refs/tags/v1', after: sha }));
    const d = readDelivery({}, body);
    expect(d.deliveryId).toMatch(/^[0-9a-f]{64}$/);
    expect(d.deliveryId).toBe(d.bodyDigest);
    expect(d.branch).toBeNull();
    expect(d.event).toBe('push');
  });

  it('refuses a body that is not a JSON object', () => {
    expect(() => readDelivery({}, Buffer.from('[1]'))).toThrow(/object/);
    expect(() => readDelivery({}, Buffer.from('{'))).toThrow(/JSON/);
  });
});

describe('comparableRepository', () => {
  it('treats clone and web addresses of one repository alike', () => {
    expect(comparableRepository('https://GitHub.com/a/b.git')).toBe(
      comparableRepository('https://github.com/a/b/'),
    );
  });
});

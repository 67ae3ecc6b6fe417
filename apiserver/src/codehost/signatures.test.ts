import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { githubSignature, signatureForm, verifySignature } from './signatures.js';

const body = Buffer.from('{"ref":"refs/heads/main"}');
const secret = 'whsec-0123456789abcdef';
const hex = createHmac('sha256', secret).update(body).digest('hex');

describe('verifySignature', () => {
  it("accepts GitHub's sha256= form and refuses it with another secret or body", () => {
    const headers = { 'x-hub-signature-256': githubSignature(body, secret) };
    expect(verifySignature(headers, body, secret)).toBe(true);
    expect(verifySignature(headers, body, `${secret}x`)).toBe(false);
    expect(verifySignature(headers, Buffer.from(`${body} `), secret)).toBe(false);
  });

  it("accepts Gitea's bare hex form", () => {
    expect(verifySignature({ 'x-gitea-signature': hex }, body, secret)).toBe(true);
    expect(verifySignature({ 'x-gitea-signature': hex.replace(/.$/, '0') }, body, secret)).toBe(
      hex.endsWith('0'),
    );
  });

  it("accepts GitLab's token form only with the exact secret", () => {
    expect(verifySignature({ 'x-gitlab-token': secret }, body, secret)).toBe(true);
    expect(verifySignature({ 'x-gitlab-token': secret.slice(1) }, body, secret)).toBe(false);
  });

  it('refuses a request without a signature, or with a malformed one', () => {
    expect(signatureForm({})).toBeNull();
    expect(verifySignature({}, body, secret)).toBe(false);
    expect(verifySignature({ 'x-hub-signature-256': hex }, body, secret)).toBe(false);
    expect(verifySignature({ 'x-hub-signature-256': 'sha256=zz' }, body, secret)).toBe(false);
  });
});

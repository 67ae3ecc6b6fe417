/**
 * Webhook signatures, the only authentication of the webhook routes. GitHub
 * and Gitea sign the raw body with HMAC-SHA256 (`X-Hub-Signature-256:
 * sha256=<hex>`, `X-Gitea-Signature: <hex>`); GitLab sends the shared secret
 * itself (`X-Gitlab-Token`). Every comparison is constant-time.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The signature headers of a request (lower-case names, as Node gives them). */
export type SignatureHeaders = Record<string, string | string[] | undefined>;

/** Which form signed the request, or null when it carries none. */
export type SignatureForm = 'github' | 'gitea' | 'gitlab';

/** The form of signature the request carries, or null when none. */
export function signatureForm(headers: SignatureHeaders): SignatureForm | null {
  if (header(headers, 'x-hub-signature-256') !== undefined) return 'github';
  if (header(headers, 'x-gitea-signature') !== undefined) return 'gitea';
  if (header(headers, 'x-gitlab-token') !== undefined) return 'gitlab';
  return null;
}

/** True when the request's signature was made with `secret` over `body`. */
export function verifySignature(headers: SignatureHeaders, body: Buffer, secret: string): boolean {
  const form = signatureForm(headers);
  if (form === 'gitlab') {
    // Hashing both sides first makes the comparison constant-time whatever their lengths.
    return equalDigests(sha256(header(headers, 'x-gitlab-token') ?? ''), sha256(secret));
  }
  if (form === null) return false;
  const sent =
    form === 'github'
      ? /^sha256=([0-9a-f]{64})$/i.exec(header(headers, 'x-hub-signature-256') ?? '')?.[1]
      : /^([0-9a-f]{64})$/i.exec(header(headers, 'x-gitea-signature') ?? '')?.[1];
  if (!sent) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return equalDigests(Buffer.from(sent.toLowerCase(), 'hex'), expected);
}

/** The `X-Hub-Signature-256` value of `body` signed with `secret` (what GitHub sends). */
export function githubSignature(body: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

function header(headers: SignatureHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function equalDigests(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

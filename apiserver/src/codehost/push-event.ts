/**
 * What a webhook delivery says, read the same way for GitHub, GitLab, Gitea
 * and anything that posts their push shape: the event, the delivery id, the
 * branch and the commit pushed, and the repository's addresses. The commit
 * is fetched from the link's own repository, never from an address in the
 * payload.
 */
import { createHash } from 'node:crypto';
import type { SignatureHeaders } from './signatures.js';

/** A delivery, as far as deploying needs it. */
export interface Delivery {
  /** The provider's delivery id, or the SHA-256 of the body when it sends none. */
  deliveryId: string;
  /**
   * The SHA-256 of the body. The delivery id header is not signed, so a
   * captured delivery resent under a new id is recognised by its body.
   */
  bodyDigest: string;
  /** `push`, `ping`, or the provider's own name of another event. */
  event: string;
  /** The branch pushed to, or null when the ref is not a branch. */
  branch: string | null;
  /** The commit the branch now points at, or null when the push deleted it. */
  commit: string | null;
  /** Every address of the repository the payload names, for matching links. */
  repositoryUrls: string[];
}

/** A body that is not a JSON object. */
export class DeliveryParseError extends Error {}

const ZERO = /^0+$/;
const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** Reads a delivery from its headers and raw body. */
export function readDelivery(headers: SignatureHeaders, body: Buffer): Delivery {
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new DeliveryParseError('The body is not JSON.');
  }
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new DeliveryParseError('The body is not a JSON object.');
  }
  const ref = typeof payload.ref === 'string' ? payload.ref : '';
  const after = typeof payload.after === 'string' ? payload.after.toLowerCase() : '';
  const bodyDigest = createHash('sha256').update(body).digest('hex');
  return {
    deliveryId:
      first(headers, ['x-github-delivery', 'x-gitea-delivery', 'x-gitlab-event-uuid']) ??
      bodyDigest,
    bodyDigest,
    event: eventName(headers, payload),
    branch: ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null,
    commit: SHA.test(after) && !ZERO.test(after) ? after : null,
    repositoryUrls: repositoryUrls(payload),
  };
}

function eventName(headers: SignatureHeaders, payload: Record<string, unknown>): string {
  const named = first(headers, ['x-github-event', 'x-gitea-event', 'x-gitlab-event']);
  if (named === undefined) return 'ref' in payload && 'after' in payload ? 'push' : 'unknown';
  const lower = named.toLowerCase();
  return lower === 'push hook' ? 'push' : lower;
}

function repositoryUrls(payload: Record<string, unknown>): string[] {
  const urls: string[] = [];
  for (const holder of [payload.repository, payload.project]) {
    if (!holder || typeof holder !== 'object') continue;
    for (const field of ['clone_url', 'html_url', 'git_http_url', 'web_url', 'url']) {
      const value = (holder as Record<string, unknown>)[field];
      if (typeof value === 'string') urls.push(value);
    }
  }
  return urls;
}

function first(headers: SignatureHeaders, names: string[]): string | undefined {
  for (const name of names) {
    const value = headers[name];
    const text = Array.isArray(value) ? value[0] : value;
    if (text) return text;
  }
  return undefined;
}

/** The form of a repository address links are compared by: no `.git`, no trailing slash, lower-case host. */
export function comparableRepository(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host.toLowerCase()}${parsed.pathname.replace(/\/+$/, '').replace(/\.git$/, '')}`;
  } catch {
    return url;
  }
}

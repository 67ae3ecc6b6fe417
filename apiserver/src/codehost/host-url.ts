/**
 * The rules for code-host addresses: a host is an HTTPS URL (plain HTTP only
 * to a loopback address, and only where configuration allows it, for tests
 * and a Git server on the same machine), without credentials, query or
 * fragment; a repository is a URL on that host or a path under it. The
 * provider is guessed from well-known hosts unless it is given.
 */
import type { CodehostProvider } from './model.js';

/** How strict the address rules are (where the host may resolve to: ./host-address.ts). */
export interface HostUrlPolicy {
  /**
   * Allows `http://` to 127.0.0.0/8, ::1 and localhost, and a host on this machine's loopback
   * at all (tests; never in a cluster).
   */
  allowLoopbackHttp: boolean;
  /** Allows a host on a private, link-local or reserved network (a Git server inside the installation's network). */
  allowPrivateHosts?: boolean;
}

/** An address refused by the rules; the message says which rule. */
export class HostUrlError extends Error {}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** The host's base URL, normalised (no trailing slash); throws HostUrlError when refused. */
export function normaliseHostUrl(text: string, policy: HostUrlPolicy): string {
  const url = parseUrl(text);
  checkScheme(url, policy);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * The clone URL of `repository` on the host `hostUrl`: a full URL must be
 * on the same origin and under the host's path; a path (`owner/name`) is
 * joined to the host. Throws HostUrlError when refused.
 */
export function resolveRepository(
  hostUrl: string,
  repository: string,
  policy: HostUrlPolicy,
): string {
  const host = new URL(hostUrl);
  if (/^[a-z][a-z0-9+.-]*:/i.test(repository)) {
    const url = parseUrl(repository);
    checkScheme(url, policy);
    const base = host.pathname.replace(/\/+$/, '');
    if (url.origin !== host.origin || !url.pathname.startsWith(`${base}/`)) {
      throw new HostUrlError(`The repository must be on the account's code host ${hostUrl}.`);
    }
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  }
  const path = repository.replace(/^\/+|\/+$/g, '');
  if (path === '' || path.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new HostUrlError('The repository path must be like owner/name.');
  }
  return `${hostUrl}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** The provider of a host: named ones by their public address, any other a plain Git server. */
export function guessProvider(hostUrl: string): CodehostProvider {
  const { hostname } = new URL(hostUrl);
  if (hostname === 'github.com') return 'github';
  if (hostname === 'gitlab.com') return 'gitlab';
  if (hostname === 'gitea.com' || hostname === 'codeberg.org') return 'gitea';
  return 'git';
}

/** The user name sent with the token when none is given, as each host expects it. */
export function defaultUsername(provider: CodehostProvider): string {
  if (provider === 'github') return 'x-access-token';
  if (provider === 'gitlab') return 'oauth2';
  return 'git';
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new HostUrlError('Not a URL.');
  }
  if (url.username || url.password) {
    throw new HostUrlError('The URL must not carry credentials; send the token separately.');
  }
  if (url.search || url.hash) throw new HostUrlError('The URL must not have a query or fragment.');
  return url;
}

function checkScheme(url: URL, policy: HostUrlPolicy): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && policy.allowLoopbackHttp && LOOPBACK.test(url.hostname)) return;
  throw new HostUrlError('The code host must be reached over https://.');
}

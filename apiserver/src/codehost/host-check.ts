/**
 * Whether a code-host token works, asked of the host itself: the user
 * endpoint of GitHub's, GitLab's or Gitea's API, and `git ls-remote` of the
 * account's linked repositories (or, with none, of the host URL, which for a
 * plain Git server may be a repository). Each check reports its own answer;
 * the token is never part of one.
 */
import { Agent, fetch } from 'undici';
import { GitError, lsRemote } from './git.js';
import { pinHost, type AddressPin } from './host-address.js';
import { HostUrlError, type HostUrlPolicy } from './host-url.js';
import type { CodehostAccountDoc } from './model.js';

/** One check and its outcome. */
export interface HostCheck {
  kind: 'api' | 'ls-remote';
  target: string;
  ok: boolean;
  error: string | null;
}

const API_TIMEOUT_MS = 15_000;

/** The host API endpoint naming the token's user, with the header it takes, or null for a plain Git server. */
export function userEndpoint(
  host: Pick<CodehostAccountDoc, 'provider' | 'url'>,
  token: string,
): { url: string; headers: Record<string, string> } | null {
  switch (host.provider) {
    case 'github':
      return {
        url:
          new URL(host.url).hostname === 'github.com'
            ? 'https://api.github.com/user'
            : `${host.url}/api/v3/user`,
        headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json' },
      };
    case 'gitlab':
      return { url: `${host.url}/api/v4/user`, headers: { 'private-token': token } };
    case 'gitea':
      return { url: `${host.url}/api/v1/user`, headers: { authorization: `token ${token}` } };
    default:
      return null;
  }
}

/** Runs the checks of `host` with `token` against `repositories`, reaching only addresses `policy` allows. */
export async function checkHost(
  host: CodehostAccountDoc,
  token: string,
  repositories: readonly string[],
  policy: HostUrlPolicy,
): Promise<HostCheck[]> {
  const checks: Promise<HostCheck>[] = [];
  const api = userEndpoint(host, token);
  if (api) checks.push(checkApi(api.url, api.headers, policy));
  const targets = repositories.length > 0 || api ? repositories : [host.url];
  for (const repository of targets) {
    checks.push(checkLsRemote(repository, host.username, token, policy));
  }
  return Promise.all(checks);
}

/** An HTTP client that connects to `pin`'s address whatever the name resolves to now. */
function pinnedAgent(pin: AddressPin): Agent {
  return new Agent({
    connect: {
      lookup: (_hostname, options, callback) => {
        if ((options as { all?: boolean }).all) {
          callback(null, [{ address: pin.address, family: pin.family }]);
        } else {
          callback(null, pin.address, pin.family);
        }
      },
    },
  });
}

async function checkApi(
  url: string,
  headers: Record<string, string>,
  policy: HostUrlPolicy,
): Promise<HostCheck> {
  let pin: AddressPin;
  try {
    pin = await pinHost(url, policy);
  } catch (err) {
    if (!(err instanceof HostUrlError)) throw err;
    return { kind: 'api', target: url, ok: false, error: err.message };
  }
  const dispatcher = pinnedAgent(pin);
  try {
    // A redirect is an answer, not followed: it could point anywhere, this machine's own
    // loopback services included, and a GitLab token header would follow it there.
    const res = await fetch(url, {
      headers,
      redirect: 'manual',
      dispatcher,
      signal: AbortSignal.timeout(API_TIMEOUT_MS),
    });
    await res.body?.cancel();
    return {
      kind: 'api',
      target: url,
      ok: res.ok,
      error: res.ok ? null : `The host answered ${res.status}.`,
    };
  } catch (err) {
    return {
      kind: 'api',
      target: url,
      ok: false,
      error: `The host did not answer: ${(err as Error).name}.`,
    };
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

async function checkLsRemote(
  repository: string,
  username: string,
  token: string,
  policy: HostUrlPolicy,
): Promise<HostCheck> {
  try {
    await lsRemote(repository, { username, token }, await pinHost(repository, policy));
    return { kind: 'ls-remote', target: repository, ok: true, error: null };
  } catch (err) {
    const message =
      err instanceof GitError || err instanceof HostUrlError
        ? err.message
        : 'git could not be run.';
    return { kind: 'ls-remote', target: repository, ok: false, error: message };
  }
}

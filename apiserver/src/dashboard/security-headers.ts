/**
 * The response headers of every dashboard file: a strict Content-Security-Policy
 * (scripts, styles and images from the dashboard's own origin only, no inline
 * code; API calls to its own origin and the vector plane's), no framing, no
 * MIME sniffing, no referrer.
 */

/** The Content-Security-Policy of the dashboard, whose API calls go to `self` and `vectorsOrigin`. */
export function dashboardCsp(vectorsOrigin: string | null): string {
  const connect = vectorsOrigin ? `'self' ${vectorsOrigin}` : `'self'`;
  return [
    `default-src 'self'`,
    `script-src 'self'`,
    `style-src 'self'`,
    `img-src 'self' data:`,
    `connect-src ${connect}`,
    `frame-ancestors 'none'`,
    `base-uri 'none'`,
    `form-action 'none'`,
  ].join('; ');
}

/** The origin (`scheme://host[:port]`) of `url`, or null when it is not an http(s) URL. */
export function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/** Every header a dashboard response carries. */
export function dashboardHeaders(vectorsOrigin: string | null): Record<string, string> {
  return {
    'content-security-policy': dashboardCsp(vectorsOrigin),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
  };
}

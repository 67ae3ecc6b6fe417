/**
 * The dashboard's pages are addressed by the URL's hash (`#/agents/hello`),
 * so the static site needs no server-side routes. A route carries names only,
 * never a key.
 */
import { useEffect, useState } from 'preact/hooks';

/** The current hash route as path segments (decoded). */
export function useRoute(): string[] {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return parseRoute(hash);
}

/** The segments of a `#/a/b` hash. */
export function parseRoute(hash: string): string[] {
  return hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decodeURIComponent(s));
}

/** The hash link of `segments`. */
export function href(...segments: string[]): string {
  return `#/${segments.map((s) => encodeURIComponent(s)).join('/')}`;
}

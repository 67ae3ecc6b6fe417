/**
 * The engine's API key check, as Qdrant makes it: the key comes in the `api-key` header
 * or as `Authorization: Bearer <key>`, and is compared in constant time. Only the health
 * checks are open without it (see server.ts); the vector gateway is the one holder.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Checks the key a request presents against the engine's own. */
export class ApiKeyCheck {
  private readonly expected: Buffer;

  constructor(apiKey: string) {
    this.expected = digest(apiKey);
  }

  /** Why a request with these headers is refused (Qdrant's wording), or undefined to let it in. */
  refusal(headers: IncomingHttpHeaders): string | undefined {
    const presented = presentedKey(headers);
    if (presented === undefined) return 'Must provide an API key or an Authorization bearer token';
    // Digests have one length whatever was sent, so the comparison leaks neither bytes nor length.
    return timingSafeEqual(digest(presented), this.expected) ? undefined : 'Invalid API key or JWT';
  }
}

function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const header = headers['api-key'];
  if (typeof header === 'string') return header;
  const authorization = headers.authorization;
  return authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
}

/** SHA-256 in one call: a Hash object per request costs more than the hashing itself. */
function digest(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

/**
 * Caps on `limit` and `offset` of the read routes. The engine sizes its
 * result buffers by `offset + limit`, so an absurd value (1e12, 2^64-1) was
 * a 500 out of the engine; the contract leaves the maxima to us
 * ("not shown"), and these are they: 400 VALIDATION_ERROR with `field` and
 * `max`, the maximum in the message.
 *
 * Searches are forwarded as sent, unparsed: a scan of the bytes finds every
 * `"limit"` and `"offset"` member and reads its number; only a body where
 * one may be over its cap (or whose keys may be spelled with escapes) is
 * parsed, and then the members are checked where the engine reads them.
 */
import { VectorValidationError } from '../../errors/catalogue.js';
import { BACKSLASH, isSpace } from '../json-members.js';

/** The most points one search, query or scroll page returns (one prefetch fetches). */
export const MAX_LIMIT = 10_000;
/** The most points a search or query skips. */
export const MAX_OFFSET = 100_000;

/** Where a route's body holds its paging members. */
export type PagingShape = 'search' | 'search-batch' | 'query' | 'query-batch' | 'scroll';

type Body = Record<string, unknown>;

/** The members capped in each shape; a scroll's `offset` is a point id, not a count. */
const CAPPED: Record<'search' | 'query' | 'scroll', readonly (readonly [string, number])[]> = {
  search: [
    ['limit', MAX_LIMIT],
    ['offset', MAX_OFFSET],
  ],
  query: [
    ['limit', MAX_LIMIT],
    ['offset', MAX_OFFSET],
  ],
  scroll: [['limit', MAX_LIMIT]],
};

/** Refuses a parsed body of `shape` whose `limit` or `offset` is over its cap. */
export function checkPaging(shape: PagingShape, body: Body): void {
  switch (shape) {
    case 'search':
    case 'scroll':
      return checkMembers(body, CAPPED[shape], '');
    case 'query':
      return checkQuery(body, '');
    case 'search-batch':
    case 'query-batch': {
      const searches = body.searches;
      if (!Array.isArray(searches)) return;
      searches.forEach((search, i) => {
        if (typeof search !== 'object' || search === null) return;
        if (shape === 'search-batch') {
          checkMembers(search as Body, CAPPED.search, `searches[${i}].`);
        } else checkQuery(search as Body, `searches[${i}].`);
      });
      return;
    }
  }
}

/** A query and its prefetches (each a query with its own limit), however deep. */
function checkQuery(query: Body, prefix: string): void {
  checkMembers(query, CAPPED.query, prefix);
  const prefetch = query.prefetch;
  const list = Array.isArray(prefetch) ? prefetch : prefetch === undefined ? [] : [prefetch];
  list.forEach((item, i) => {
    if (typeof item !== 'object' || item === null) return;
    const at = Array.isArray(prefetch) ? `${prefix}prefetch[${i}].` : `${prefix}prefetch.`;
    checkQuery(item as Body, at);
  });
}

function checkMembers(body: Body, capped: readonly (readonly [string, number])[], prefix: string) {
  for (const [name, max] of capped) {
    const value = body[name];
    if (typeof value === 'number' && value > max) {
      throw new VectorValidationError(`${prefix}${name} must be at most ${max}.`, {
        fields: { field: `${prefix}${name}`, max },
      });
    }
  }
}

const LIMIT = Buffer.from('"limit"');
const OFFSET = Buffer.from('"offset"');
const COLON = 0x3a;

/**
 * Whether a body's bytes may hold a `limit` or `offset` over its cap: some
 * member of that name whose value is a number that is not a short run of
 * digits within the cap, or a backslash anywhere (a member name spelled with
 * escapes). False means certainly not, without parsing; the members' names
 * are found wherever they are, which only makes the answer more careful.
 */
export function pagingMayExceed(bytes: Buffer): boolean {
  if (bytes.includes(BACKSLASH)) return true;
  return mayExceed(bytes, LIMIT, MAX_LIMIT) || mayExceed(bytes, OFFSET, MAX_OFFSET);
}

function mayExceed(bytes: Buffer, name: Buffer, max: number): boolean {
  for (let at = bytes.indexOf(name); at !== -1; at = bytes.indexOf(name, at + 1)) {
    let i = at + name.length;
    while (isSpace(bytes[i] ?? 0)) i++;
    if (bytes[i] !== COLON) continue; // A string value, not a member name.
    i++;
    while (isSpace(bytes[i] ?? 0)) i++;
    let value = 0;
    let digits = 0;
    while (bytes[i]! >= 0x30 && bytes[i]! <= 0x39) {
      value = value * 10 + bytes[i]! - 0x30;
      digits++;
      i++;
    }
    if (digits === 0) continue; // Not a non-negative number: the engine's to refuse.
    const next = bytes[i];
    // A fraction or an exponent ("1e12") is read by parsing; so is a long run of digits.
    if (next === 0x2e || next === 0x65 || next === 0x45 || digits > 7 || value > max) return true;
  }
  return false;
}

/**
 * Full-text matching as Qdrant does it: the field's text index settings when it has one,
 * otherwise the default word tokenizer with lowercasing. A `text` match wants every query
 * token in the value, `text_any` one of them, `phrase` all of them in a row (and only when
 * the index records positions, `phrase_matching`; without an index it always works). A
 * prefix index holds every prefix of each word, and a query word matches as a prefix,
 * cut to the index's longest token.
 */

/** The text index settings that change what a text condition matches. */
export interface TokenizerConfig {
  tokenizer: 'word' | 'whitespace' | 'prefix' | 'multilingual';
  lowercase: boolean;
  minTokenLen?: number;
  maxTokenLen?: number;
  phraseMatching: boolean;
}

/** The tokenizer of a field without a text index. */
export const DEFAULT_TOKENIZER: TokenizerConfig = {
  tokenizer: 'word',
  lowercase: true,
  phraseMatching: true,
};

const NON_WORD = /[^\p{Alphabetic}\p{N}]+/u;

function lengthOk(token: string, config: TokenizerConfig): boolean {
  const n = [...token].length;
  if (config.minTokenLen !== undefined && n < config.minTokenLen) return false;
  if (config.maxTokenLen !== undefined && n > config.maxTokenLen) return false;
  return true;
}

function words(text: string, config: TokenizerConfig): string[] {
  const parts = config.tokenizer === 'whitespace' ? text.split(/\s+/u) : text.split(NON_WORD);
  const out: string[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const token = config.lowercase ? part.toLowerCase() : part;
    out.push(token);
  }
  return out;
}

/** Tokens of a query string: whole words, cut to the longest token of a prefix index. */
export function queryTokens(text: string, config: TokenizerConfig): string[] {
  if (config.tokenizer !== 'prefix') return words(text, config).filter((t) => lengthOk(t, config));
  const out: string[] = [];
  for (const word of words(text, config)) {
    const chars = [...word];
    if (chars.length < (config.minTokenLen ?? 1)) continue;
    out.push(chars.slice(0, config.maxTokenLen ?? chars.length).join(''));
  }
  return out;
}

/** Tokens of a stored value, in order; a prefix index also holds every prefix of each word. */
export function documentTokens(text: string, config: TokenizerConfig): string[] {
  const tokens = words(text, config);
  if (config.tokenizer !== 'prefix') return tokens.filter((t) => lengthOk(t, config));
  const out: string[] = [];
  for (const token of tokens) {
    const chars = [...token];
    const min = Math.max(1, config.minTokenLen ?? 1);
    const max = Math.min(chars.length, config.maxTokenLen ?? chars.length);
    for (let n = min; n <= max; n++) out.push(chars.slice(0, n).join(''));
  }
  return out;
}

/** Whether a stored string matches a text, text_any or phrase condition. */
export function textMatches(
  kind: 'text' | 'text_any' | 'phrase',
  stored: string,
  query: string,
  config: TokenizerConfig,
): boolean {
  const wanted = queryTokens(query, config);
  if (wanted.length === 0) return false;
  if (kind === 'phrase') {
    if (!config.phraseMatching) return false;
    const prefix = config.tokenizer === 'prefix';
    const doc = prefix ? words(stored, config) : documentTokens(stored, config);
    outer: for (let i = 0; i + wanted.length <= doc.length; i++) {
      for (let j = 0; j < wanted.length; j++) {
        const same = prefix ? doc[i + j]!.startsWith(wanted[j]!) : doc[i + j] === wanted[j];
        if (!same) continue outer;
      }
      return true;
    }
    return false;
  }
  const doc = new Set(documentTokens(stored, config));
  return kind === 'text_any' ? wanted.some((t) => doc.has(t)) : wanted.every((t) => doc.has(t));
}

/**
 * `text` and `text_any` through a text index: the index holds one set of tokens per
 * point, so the words may come from different values of an array.
 */
export function indexedTextMatches(
  kind: 'text' | 'text_any',
  stored: string[],
  query: string,
  config: TokenizerConfig,
): boolean {
  const wanted = queryTokens(query, config);
  if (wanted.length === 0) return false;
  const doc = new Set(stored.flatMap((value) => documentTokens(value, config)));
  return kind === 'text_any' ? wanted.some((t) => doc.has(t)) : wanted.every((t) => doc.has(t));
}

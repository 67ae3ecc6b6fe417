import { expect, test } from '@jest/globals';
import {
  DEFAULT_TOKENIZER,
  documentTokens,
  indexedTextMatches,
  queryTokens,
  textMatches,
} from './text.js';
import type { TokenizerConfig } from './text.js';

test('the word tokenizer splits on everything but letters and digits, and lowercases', () => {
  expect(documentTokens('Hello-World x_y Straße 42', DEFAULT_TOKENIZER)).toEqual([
    'hello',
    'world',
    'x',
    'y',
    'straße',
    '42',
  ]);
});

test('text wants every token, text_any one, phrase all of them in a row', () => {
  expect(textMatches('text', 'brave new world', 'world new', DEFAULT_TOKENIZER)).toBe(true);
  expect(textMatches('text', 'worldly', 'world', DEFAULT_TOKENIZER)).toBe(false);
  expect(textMatches('text_any', 'brave new world', 'old world', DEFAULT_TOKENIZER)).toBe(true);
  expect(textMatches('phrase', 'brave new world', 'new world', DEFAULT_TOKENIZER)).toBe(true);
  expect(textMatches('phrase', 'brave new world', 'world new', DEFAULT_TOKENIZER)).toBe(false);
  expect(textMatches('text', 'anything', '  ', DEFAULT_TOKENIZER)).toBe(false);
});

test('a prefix index matches query words as prefixes, cut to its longest token', () => {
  const prefix: TokenizerConfig = {
    tokenizer: 'prefix',
    lowercase: true,
    minTokenLen: 2,
    maxTokenLen: 6,
    phraseMatching: false,
  };
  expect(queryTokens('Alphabets a', prefix)).toEqual(['alphab']);
  expect(textMatches('text', 'hello-world alphabet', 'wor', prefix)).toBe(true);
  expect(textMatches('phrase', 'alpha beta', 'alpha beta', prefix)).toBe(false);
});

test('through an index, text may take its words from different array values', () => {
  const index = { ...DEFAULT_TOKENIZER, phraseMatching: false };
  expect(indexedTextMatches('text', ['a b', 'c d'], 'a d', index)).toBe(true);
  expect(['a b', 'c d'].some((v) => textMatches('text', v, 'a d', DEFAULT_TOKENIZER))).toBe(false);
});

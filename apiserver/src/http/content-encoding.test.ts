import { describe, expect, it } from '@jest/globals';
import { requestBodyCodings } from './content-encoding.js';

describe('requestBodyCodings', () => {
  it('names each coding of a body, lower case, identity aside', () => {
    const headers = { 'content-length': '10', 'content-encoding': 'GZip, identity,br' };
    expect(requestBodyCodings(headers)).toEqual(['gzip', 'br']);
  });

  it('counts a chunked body as a body', () => {
    const headers = { 'transfer-encoding': 'chunked', 'content-encoding': 'deflate' };
    expect(requestBodyCodings(headers)).toEqual(['deflate']);
  });

  it('is empty for identity, for no header and for a request without a body', () => {
    expect(requestBodyCodings({ 'content-length': '2', 'content-encoding': 'identity' })).toEqual(
      [],
    );
    expect(requestBodyCodings({ 'content-length': '2' })).toEqual([]);
    expect(requestBodyCodings({ 'content-length': '0', 'content-encoding': 'gzip' })).toEqual([]);
    expect(requestBodyCodings({ 'content-encoding': 'gzip' })).toEqual([]);
  });
});

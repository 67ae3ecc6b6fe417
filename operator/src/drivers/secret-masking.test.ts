import { describe, expect, it } from '@jest/globals';
import { secretMasker } from './secret-masking.js';

describe('secretMasker', () => {
  it('replaces every occurrence of a value of 4 characters or more with ***', () => {
    const mask = secretMasker(['s3cr3t-token', 'abcd']);
    expect(mask('token=s3cr3t-token and again s3cr3t-token')).toBe('token=*** and again ***');
    expect(mask('abcd!')).toBe('***!');
  });

  it('leaves values shorter than 4 characters alone', () => {
    expect(secretMasker(['abc'])('abc abc')).toBe('abc abc');
  });

  it('masks the longer of two overlapping values whole', () => {
    expect(secretMasker(['pass', 'password123'])('password123')).toBe('***');
  });

  it('masks each line of a multi-line value, as lines are stored one by one', () => {
    const mask = secretMasker(['-----BEGIN KEY-----\nMIIBOgIBAAJBAK\n-----END KEY-----']);
    expect(mask('MIIBOgIBAAJBAK')).toBe('***');
  });

  it('returns lines unchanged when there is nothing to mask', () => {
    expect(secretMasker([])('hello')).toBe('hello');
  });
});

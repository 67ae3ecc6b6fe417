import { describe, expect, it } from '@jest/globals';
import { envBool, envInt, envOptional, envString } from './env.js';

describe('env readers', () => {
  it('falls back when a variable is unset or empty', () => {
    expect(envString('X', 'dflt', {})).toBe('dflt');
    expect(envString('X', 'dflt', { X: '' })).toBe('dflt');
    expect(envInt('X', 7, {}, {})).toBe(7);
    expect(envBool('X', true, {})).toBe(true);
    expect(envOptional('X', { X: '' })).toBeUndefined();
  });

  it('parses set values', () => {
    expect(envString('X', 'dflt', { X: 'v' })).toBe('v');
    expect(envInt('X', 7, { min: 1, max: 10 }, { X: '9' })).toBe(9);
    expect(envBool('X', false, { X: 'YES' })).toBe(true);
    expect(envBool('X', true, { X: '0' })).toBe(false);
  });

  it('names the variable when a value is invalid', () => {
    expect(() => envInt('PORT', 1, { min: 1, max: 65535 }, { PORT: '70000' })).toThrow(
      /PORT must be an integer/,
    );
    expect(() => envInt('PORT', 1, {}, { PORT: '1.5' })).toThrow(/PORT/);
    expect(() => envBool('FLAG', true, { FLAG: 'maybe' })).toThrow(/FLAG must be true or false/);
  });
});

import { describe, expect, it } from '@jest/globals';
import { internalToken, verifyInternalToken } from './internal-token.js';

describe('internal tokens', () => {
  const secret = 's3cret';
  it('opens one purpose for one deployment only', () => {
    const token = internalToken(secret, 'artifact:read', 'd1');
    expect(verifyInternalToken(secret, 'artifact:read', 'd1', token)).toBe(true);
    expect(verifyInternalToken(secret, 'artifact:write', 'd1', token)).toBe(false);
    expect(verifyInternalToken(secret, 'artifact:read', 'd2', token)).toBe(false);
    expect(verifyInternalToken('other', 'artifact:read', 'd1', token)).toBe(false);
    expect(verifyInternalToken(secret, 'artifact:read', 'd1', '')).toBe(false);
  });
});

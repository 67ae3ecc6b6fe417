import { describe, expect, it } from '@jest/globals';
import { ApiFailure, failureFrom, failureOf } from './errors.js';

describe('failureFrom', () => {
  it("reads the control plane's {detail:{code,message}}", () => {
    const f = failureFrom(404, { detail: { code: 'AGENT_NOT_FOUND', message: 'No agent x.' } });
    expect([f.status, f.code, f.message]).toEqual([404, 'AGENT_NOT_FOUND', 'No agent x.']);
  });

  it("reads the vector plane's {error:{code,message}}", () => {
    const f = failureFrom(400, { error: { code: 'INVALID_POINT_ID', message: 'Bad id.' } });
    expect([f.code, f.message]).toEqual(['INVALID_POINT_ID', 'Bad id.']);
  });

  it('names the status for a plain-string detail and for a text body', () => {
    expect(failureFrom(404, { detail: 'Not Found' }).code).toBe('HTTP_404');
    const f = failureFrom(500, 'Internal Server Error');
    expect([f.code, f.message]).toEqual(['HTTP_500', 'Internal Server Error']);
  });

  it('keeps an ApiFailure and turns anything else into NETWORK_ERROR', () => {
    const kept = new ApiFailure(409, 'X', 'y');
    expect(failureOf(kept)).toBe(kept);
    expect(failureOf(new TypeError('Failed to fetch')).code).toBe('NETWORK_ERROR');
  });
});

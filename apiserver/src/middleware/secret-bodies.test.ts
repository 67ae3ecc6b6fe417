import { describe, expect, it } from '@jest/globals';
import type { Context } from 'koa';
import { ValidationFailed } from '../errors/catalogue.js';
import { SECRET_PATH, secretBodies } from './secret-bodies.js';

/** Runs the middleware on `path` with a downstream that fails with a JSON parse error. */
async function refusalOn(path: string): Promise<string> {
  const quoted = 'Invalid JSON: Unexpected token } in "{"token":"ghp_s3cr3t}"';
  const failing = () => {
    throw new ValidationFailed('The request failed schema validation', {
      fields: { violations: [{ loc: ['body'], msg: quoted, type: 'json_invalid' }] },
    });
  };
  try {
    await secretBodies()({ path } as Context, failing as never);
  } catch (err) {
    const violations = (err as ValidationFailed).fields?.violations as { msg: string }[];
    return violations[0]!.msg;
  }
  throw new Error('the middleware swallowed the refusal');
}

describe('secretBodies', () => {
  it.each([
    '/api/v1/agents/a/secrets',
    '/api/v1/agents/a/secrets/API_TOKEN/rotate',
    '/api/v1/workspaces/w/secrets',
    '/api/v1/auth/codehost',
    '/api/v1/agents/a/codehost',
  ])('never quotes the body of a malformed request to %s', async (path) => {
    expect(SECRET_PATH.test(path)).toBe(true);
    await expect(refusalOn(path)).resolves.toBe('Invalid JSON');
  });

  it('keeps the parser message on other routes', async () => {
    expect(SECRET_PATH.test('/api/v1/agents/a/runs')).toBe(false);
    await expect(refusalOn('/api/v1/agents/a/runs')).resolves.toContain('Unexpected token');
  });
});

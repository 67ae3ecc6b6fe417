import { describe, expect, test } from '@jest/globals';
import { engineFailure } from './engine-errors.js';

const qdrant = (error: string) => JSON.stringify({ status: { error }, time: 0 });
const NAME = 't_live_0123456789abcdef0123456789abcdef_docs';

describe('engineFailure', () => {
  test.each([
    [400, 400, 'BAD_REQUEST'],
    [422, 400, 'BAD_REQUEST'],
    [401, 401, 'UNAUTHORIZED'],
    [403, 403, 'FORBIDDEN'],
    [404, 404, 'NOT_FOUND'],
    [409, 409, 'CONFLICT'],
    [412, 412, 'PRECONDITION_FAILED'],
    [429, 429, 'RATE_LIMITED'],
    [418, 400, 'BAD_REQUEST'],
    [500, 500, 'UPSTREAM_ERROR'],
    [502, 502, 'UPSTREAM_ERROR'],
    [503, 503, 'UPSTREAM_ERROR'],
    [504, 504, 'UPSTREAM_ERROR'],
    [507, 502, 'UPSTREAM_ERROR'],
  ])('maps an engine %i without a code to %i %s', (engineStatus, status, code) => {
    const err = engineFailure({ status: engineStatus, text: qdrant('nope') });
    expect(err).toMatchObject({ status, code, message: 'nope' });
  });

  test('keeps a code the engine body carries', () => {
    const err = engineFailure({
      status: 409,
      text: JSON.stringify({ error: { code: 'WRITE_CONFLICT', message: 'busy' } }),
    });
    expect(err).toMatchObject({ status: 409, code: 'WRITE_CONFLICT', message: 'busy' });
  });

  test('turns tenant-scoped names back into bare names in the message', () => {
    const err = engineFailure({
      status: 404,
      text: qdrant(`Not found: Collection \`${NAME}\` doesn't exist!`),
    });
    expect(err.message).toBe("Not found: Collection `docs` doesn't exist!");
  });

  test('survives a body that is not JSON', () => {
    const err = engineFailure({ status: 502, text: '<html>bad gateway</html>' });
    expect(err).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
  });

  test.each([
    'Format error in JSON body: expected value at line 1 column 30',
    'Format error in JSON body: EOF while parsing a list at line 1 column 12',
    'Format error in JSON body: Unexpected token \',\', "[1,,2]" is not valid JSON',
    "Format error in JSON body: Expected ',' or ']' after array element in JSON at position 3",
  ])('maps a body that does not parse to 400 MALFORMED_JSON: %s', (message) => {
    expect(engineFailure({ status: 400, text: qdrant(message) })).toMatchObject({
      status: 400,
      code: 'MALFORMED_JSON',
    });
  });

  test('keeps valid JSON of the wrong shape a BAD_REQUEST', () => {
    const message =
      'Format error in JSON body: invalid type: string "a", expected f32 at line 1 column 9';
    expect(engineFailure({ status: 400, text: qdrant(message) })).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
    });
  });
});

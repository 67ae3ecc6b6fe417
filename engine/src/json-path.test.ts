import { describe, expect, test } from '@jest/globals';
import { EngineError } from './errors.js';
import { parseJsonPath } from './json-path.js';

describe('parseJsonPath', () => {
  test('reads a path a request sends', () => {
    expect(parseJsonPath('a.b[2][]')).toEqual(['a', 'b', 2, -1]);
  });

  test("answers Qdrant's 400 for what is not a path", () => {
    for (const bad of ['a..b', '', 7, null]) {
      let error: unknown;
      try {
        parseJsonPath(bad);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(EngineError);
      expect(error).toMatchObject({
        status: 400,
        message: `Format error in JSON body: Invalid json path: '${String(bad)}'`,
      });
    }
  });
});

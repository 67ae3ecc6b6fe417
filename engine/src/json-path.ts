/**
 * The parser of a JSON path sent in a request, which answers Qdrant's 400 when it is not
 * one. The paths themselves (reading, setting, projecting) are common/json-path.ts.
 */
import { tryParseJsonPath, type JsonPath } from '../../common/json-path.js';
import { formatError } from './errors.js';

/** Parses a path from a request, with Qdrant's 400 when it is not one. */
export function parseJsonPath(text: unknown): JsonPath {
  const path = typeof text === 'string' ? tryParseJsonPath(text) : undefined;
  if (!path) throw formatError(`Invalid json path: '${String(text)}'`);
  return path;
}

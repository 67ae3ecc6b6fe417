/**
 * The engine's JSON paths: the shared path code (common/json-path.ts) and the parser of
 * a path sent in a request, which answers Qdrant's 400 when it is not one.
 */
import { tryParseJsonPath, type JsonPath } from '../../common/json-path.js';
import { formatError } from './errors.js';

export * from '../../common/json-path.js';

/** Parses a path from a request, with Qdrant's 400 when it is not one. */
export function parseJsonPath(text: unknown): JsonPath {
  const path = typeof text === 'string' ? tryParseJsonPath(text) : undefined;
  if (!path) throw formatError(`Invalid json path: '${String(text)}'`);
  return path;
}

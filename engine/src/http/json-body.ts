/**
 * Request bodies as JSON, refused with Qdrant's 400 before they can hurt: JSON that does
 * not parse, and JSON that nests deeper than {@link MAX_JSON_DEPTH} levels, which is
 * refused before JSON.parse sees it (see common/json-depth.ts).
 */
import { EngineError } from '../errors.js';
import { MAX_JSON_DEPTH, depthExceededAt } from '../../../common/json-depth.js';

/**
 * Parses a request body (undefined when empty), or throws Qdrant's 400: "Format error in
 * JSON body" for JSON that does not parse or nests deeper than {@link MAX_JSON_DEPTH}.
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const tooDeep = depthExceededAt(raw);
  if (tooDeep >= 0) {
    throw new EngineError(
      400,
      `Format error in JSON body: recursion limit exceeded at byte ${tooDeep}: ` +
        `objects and arrays may nest at most ${MAX_JSON_DEPTH} levels deep`,
    );
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new EngineError(400, `Format error in JSON body: ${(error as Error).message}`);
  }
}

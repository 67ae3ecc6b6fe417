/**
 * What the explorer's nearest-50 box holds: a point id (an unsigned integer
 * or a UUID) or a pasted vector (a JSON array, or numbers separated by commas
 * or spaces), and the engine's query body for it.
 */
import { PAGE_SIZE } from './paging.js';

/** A parsed query input, or why it is not one. */
export type QueryInput =
  | { kind: 'id'; id: string | number }
  | { kind: 'vector'; vector: number[] }
  | { kind: 'invalid'; reason: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads the box's text; `size` is the collection's vector size. */
export function parseQueryInput(text: string, size: number): QueryInput {
  const trimmed = text.trim();
  if (trimmed === '') return { kind: 'invalid', reason: 'Enter a point id or a vector.' };
  if (/^\d+$/.test(trimmed)) {
    const id = Number(trimmed);
    if (Number.isSafeInteger(id)) return { kind: 'id', id };
    return { kind: 'invalid', reason: 'That point id is too large.' };
  }
  if (UUID.test(trimmed)) return { kind: 'id', id: trimmed.toLowerCase() };
  const body = trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
  const parts = body.split(/[\s,]+/).filter((p) => p !== '');
  const vector = parts.map(Number);
  if (parts.length < 2 || vector.some((n) => !Number.isFinite(n)))
    return {
      kind: 'invalid',
      reason: 'Not a point id (an integer or a UUID) nor a list of numbers.',
    };
  if (vector.length !== size)
    return {
      kind: 'invalid',
      reason: `The vector has ${vector.length} numbers; the collection's size is ${size}.`,
    };
  return { kind: 'vector', vector };
}

/** The `points/query` body for the nearest 50 to `input`, with `filter` when given. */
export function nearestQuery(
  input: QueryInput & { kind: 'id' | 'vector' },
  filter: unknown,
): Record<string, unknown> {
  return {
    query: input.kind === 'id' ? input.id : input.vector,
    limit: PAGE_SIZE,
    with_payload: true,
    ...(filter ? { filter } : {}),
  };
}

/** Reads a filter typed as JSON: null when empty, else the object or an error text. */
export function parseFilter(
  text: string,
): { filter: Record<string, unknown> | null } | { error: string } {
  if (text.trim() === '') return { filter: null };
  try {
    const value = JSON.parse(text) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      return {
        error: 'A filter is a JSON object, such as {"must":[{"key":"k","match":{"value":1}}]}.',
      };
    return { filter: value as Record<string, unknown> };
  } catch (err) {
    return { error: `The filter is not JSON: ${(err as Error).message}` };
  }
}

/**
 * Turns a yup `ValidationError` into a flat list of violations, one per failed
 * check, each with where in the request it happened (`loc`), yup's message
 * (`msg`) and a stable snake_case `type` clients can match on.
 *
 * The `type` vocabulary:
 *
 * | yup test                          | type                                                             |
 * | --------------------------------- | ---------------------------------------------------------------- |
 * | `required`, `optionality`         | `missing`                                                        |
 * | `typeError`                       | `type_error`                                                     |
 * | `nullable`                        | `null_not_allowed`                                               |
 * | `min` (string / array / other)    | `string_too_short` / `array_too_short` / `less_than_minimum`     |
 * | `max` (string / array / other)    | `string_too_long` / `array_too_long` / `greater_than_maximum`    |
 * | `length` (string / array / other) | `string_length` / `array_length` / `length`                      |
 * | `integer`                         | `int_type`                                                       |
 * | `matches`                         | `string_pattern_mismatch`                                        |
 * | `oneOf`                           | `enum`                                                           |
 * | `notOneOf`                        | `forbidden_value`                                                |
 * | `noUnknown`, `exact`              | `extra_forbidden`                                                |
 * | no test name                      | `value_error`                                                    |
 * | anything else                     | the test name in snake_case (`reserved-name` -> `reserved_name`) |
 *
 * `min`/`max` also cover `moreThan`/`lessThan` (and so `positive`/`negative`),
 * which yup runs under the same names; dates count as "other".
 */
import type * as yup from 'yup';

/** The part of the request a violation was found in; the first element of its `loc`. */
export type ViolationSource = 'body' | 'query' | 'path';

/** One failed check. */
export interface Violation {
  /** Where: the request part, then object keys and (as numbers) array indices. */
  loc: (string | number)[];
  /** yup's human-readable message. */
  msg: string;
  /** A stable snake_case name for the kind of failure (see the module comment). */
  type: string;
}

/** The error body for a request that failed validation. */
export interface ValidationErrorDetail {
  code: 'VALIDATION_ERROR';
  message: 'Request validation failed';
  violations: Violation[];
}

/**
 * Lists the violations in a yup `ValidationError`: one per entry of `err.inner`
 * (as filled by `abortEarly: false`), or `err` itself when `inner` is empty.
 *
 * A yup path such as `allowed_workers[2].name` or `a["weird.key"]` becomes
 * `[where, 'allowed_workers', 2, 'name']` or `[where, 'a', 'weird.key']`; an error
 * on the validated value itself (no path) gives `[where]`.
 */
export function toViolations(err: yup.ValidationError, where: ViolationSource): Violation[] {
  return leaves(err).map((e) => ({
    loc: [where, ...splitPath(e.path ?? '')],
    msg: e.message,
    type: violationType(e),
  }));
}

/**
 * The response detail for a request that failed validation:
 * `{ code: 'VALIDATION_ERROR', message: 'Request validation failed', violations }`.
 */
export function validationErrorDetail(
  err: yup.ValidationError,
  where: ViolationSource,
): ValidationErrorDetail {
  return {
    code: 'VALIDATION_ERROR',
    message: 'Request validation failed',
    violations: toViolations(err, where),
  };
}

function leaves(err: yup.ValidationError): yup.ValidationError[] {
  return err.inner.length > 0 ? err.inner.flatMap(leaves) : [err];
}

/** Splits a yup path (`a.b`, `a[0].b`, `a["x.y"]`) into keys and array indices. */
function splitPath(path: string): (string | number)[] {
  const segments: (string | number)[] = [];
  let current = '';
  const flush = () => {
    if (current !== '') segments.push(current);
    current = '';
  };
  let i = 0;
  while (i < path.length) {
    const ch = path[i];
    if (ch === '.') {
      flush();
      i += 1;
      continue;
    }
    if (ch === '[') {
      const quote = path[i + 1];
      if (quote === '"' || quote === "'") {
        // yup writes keys containing dots as `["key"]`, without escaping.
        const end = path.indexOf(`${quote}]`, i + 2);
        if (end !== -1) {
          flush();
          segments.push(path.slice(i + 2, end));
          i = end + 2;
          continue;
        }
      } else {
        const end = path.indexOf(']', i + 1);
        if (end !== -1) {
          flush();
          const inner = path.slice(i + 1, end);
          segments.push(/^\d+$/.test(inner) ? Number(inner) : inner);
          i = end + 1;
          continue;
        }
      }
    }
    current += ch;
    i += 1;
  }
  flush();
  return segments;
}

type ValueKind = 'string' | 'array' | 'other';

function valueKind(params: yup.ValidationError['params']): ValueKind {
  const value = params?.value;
  if (typeof value === 'string') return 'string';
  if (Array.isArray(value)) return 'array';
  return 'other';
}

const BY_KIND: Record<string, Record<ValueKind, string>> = {
  min: { string: 'string_too_short', array: 'array_too_short', other: 'less_than_minimum' },
  max: { string: 'string_too_long', array: 'array_too_long', other: 'greater_than_maximum' },
  length: { string: 'string_length', array: 'array_length', other: 'length' },
};

const FIXED: Record<string, string> = {
  required: 'missing',
  optionality: 'missing',
  typeError: 'type_error',
  nullable: 'null_not_allowed',
  integer: 'int_type',
  matches: 'string_pattern_mismatch',
  oneOf: 'enum',
  notOneOf: 'forbidden_value',
  noUnknown: 'extra_forbidden',
  exact: 'extra_forbidden',
};

function violationType(err: yup.ValidationError): string {
  const name = err.type;
  if (!name) return 'value_error';
  if (Object.hasOwn(BY_KIND, name)) return BY_KIND[name]![valueKind(err.params)];
  if (Object.hasOwn(FIXED, name)) return FIXED[name]!;
  return snakeCase(name) || 'value_error';
}

function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/**
 * Payload schemas are JSON Schema (draft 2020-12 by default, draft-07 when
 * `$schema` names it), compiled with Ajv. Schemas come from tenants and run on
 * the gateway's one event loop, so compiling guards against what could hurt
 * other tenants:
 *
 * - each schema is compiled in an Ajv instance of its own, so one tenant's
 *   `$id` can never resolve or collide with another's;
 * - remote `$ref`s are never fetched (an unresolvable reference is a 400);
 * - every regular expression (`pattern`, `patternProperties`) must pass a
 *   backtracking analysis (redos-detector): V8's regex engine backtracks, and
 *   one catastrophic pattern against a 64 KB string would stall every request;
 * - unknown keywords and formats are refused (strict schema mode), which
 *   catches typos such as `requird` that would otherwise check nothing.
 *
 * Validation stops at a payload's first violation (Ajv's `allErrors: false`),
 * which bounds the work per point and is enough to name a responsible field.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { isSafePattern } from 'redos-detector';
import { VectorValidationError } from '../../errors/catalogue.js';

/** One way a payload breaks its schema. */
export interface Violation {
  /** The payload path, `a.b[2]`; `(payload)` for the payload as a whole. */
  field: string;
  message: string;
}

/** Checks one payload (without the attested `__svc_` keys); null when it conforms. */
export type PayloadValidator = (payload: Record<string, unknown>) => Violation | null;

const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;

/** Longest regular expression accepted in a schema. */
const MAX_PATTERN_LENGTH = 1000;
/** Time the backtracking analysis may take over all patterns of one schema. */
const PATTERN_CHECK_BUDGET_MS = 500;

const AJV_OPTIONS: Options = {
  strictSchema: true,
  strictNumbers: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  allErrors: false,
  // The meta-schema check ran already, on the shared instance.
  validateSchema: false,
  // Never load a schema from elsewhere.
  loadSchema: undefined,
};

type Draft = '2020-12' | 'draft-07';

function newAjv(draft: Draft, options: Options): Ajv {
  const ajv = draft === 'draft-07' ? new Ajv(options) : new Ajv2020(options);
  addFormats.default(ajv);
  return ajv;
}

// One instance per draft only checks schemas against the meta-schema, which it
// compiles once; it never holds a tenant's schema.
const metaCheckers = new Map<Draft, Ajv>();

function metaChecker(draft: Draft): Ajv {
  let ajv = metaCheckers.get(draft);
  if (!ajv) {
    ajv = newAjv(draft, { ...AJV_OPTIONS, validateSchema: true, allErrors: true });
    metaCheckers.set(draft, ajv);
  }
  return ajv;
}

function refuse(message: string, field = 'schema'): never {
  throw new VectorValidationError(message, { fields: { field } });
}

function draftOf(schema: Record<string, unknown>): Draft {
  const declared = schema.$schema;
  if (declared === undefined || declared === DRAFT_2020) return '2020-12';
  if (typeof declared === 'string' && DRAFT_07.test(declared)) return 'draft-07';
  return refuse(
    `schema.$schema must be ${DRAFT_2020} (the default) or draft-07.`,
    'schema.$schema',
  );
}

/**
 * Compiles a payload schema, or throws 400 VALIDATION_ERROR saying why it is
 * not usable: not a JSON Schema, not describing an object, an unresolvable
 * reference, an unknown keyword or format, or an unsafe regular expression.
 */
export function compilePayloadSchema(schema: Record<string, unknown>): PayloadValidator {
  const draft = draftOf(schema);
  const meta = metaChecker(draft);
  if (!meta.validateSchema(schema)) {
    refuse(
      `schema is not a valid JSON Schema: ${meta.errorsText(meta.errors, { dataVar: 'schema' })}.`,
    );
  }
  const type = schema.type;
  if (
    type !== undefined &&
    type !== 'object' &&
    !(Array.isArray(type) && type.includes('object'))
  ) {
    refuse('schema describes a payload, which is an object: its type must allow "object".');
  }
  checkPatterns(schema);
  let validate: ValidateFunction;
  try {
    validate = newAjv(draft, AJV_OPTIONS).compile(schema);
  } catch (err) {
    refuse(`schema cannot be used: ${(err as Error).message}.`);
  }
  return (payload) => (validate(payload) ? null : violationOf(validate.errors?.[0]));
}

// Keywords whose values are data, not schemas: a `pattern` key inside them is not a regex.
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/** Refuses regular expressions that are too long or could backtrack catastrophically. */
function checkPatterns(schema: unknown): void {
  const patterns: { pattern: string; at: string }[] = [];
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${at}/${i}`));
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) continue;
      if (key === 'pattern' && typeof value === 'string') patterns.push({ pattern: value, at });
      if (key === 'patternProperties' && typeof value === 'object' && value !== null) {
        for (const name of Object.keys(value)) patterns.push({ pattern: name, at: `${at}/${key}` });
      }
      walk(value, `${at}/${key}`);
    }
  };
  walk(schema, '#');
  const deadline = performance.now() + PATTERN_CHECK_BUDGET_MS;
  for (const { pattern, at } of patterns) {
    if (pattern.length > MAX_PATTERN_LENGTH) {
      refuse(`The pattern at ${at} is longer than ${MAX_PATTERN_LENGTH} characters.`);
    }
    const timeout = Math.max(1, Math.min(100, deadline - performance.now()));
    let safe: boolean;
    try {
      safe = isSafePattern(pattern, { unicode: true, timeout }).safe;
    } catch {
      // Syntax the analysis does not know (some lookbehinds, unicode sets): not provably safe.
      safe = false;
    }
    if (!safe) {
      refuse(
        `The pattern ${JSON.stringify(pattern)} at ${at} could take exponential or polynomial time to match ` +
          '(nested or overlapping repetition); use bounded repetition ({1,64}) or a format.',
      );
    }
  }
}

/** The field and message of Ajv's first error. */
export function violationOf(error: ErrorObject | undefined): Violation {
  if (!error) return { field: '(payload)', message: 'does not match the schema' };
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  const params = error.params as Record<string, unknown>;
  const named =
    params.missingProperty ??
    params.additionalProperty ??
    params.unevaluatedProperty ??
    params.propertyName;
  if (typeof named === 'string') segments.push(named);
  const field = formatPath(segments);
  return { field, message: `${field} ${error.message ?? 'does not match the schema'}` };
}

function formatPath(segments: string[]): string {
  if (segments.length === 0) return '(payload)';
  return segments
    .map((s, i) => (/^\d+$/.test(s) && i > 0 ? `[${s}]` : i === 0 ? s : `.${s}`))
    .join('');
}

/** A field path with array indices folded (`tags[3]` → `tags[]`), to count violations by field. */
export function fieldFamily(field: string): string {
  return field.replace(/\[\d+\]/g, '[]');
}

/** Compiled validators by schema version, so a schema is compiled once per process. */
export class ValidatorCache {
  private readonly entries = new Map<string, PayloadValidator>();

  constructor(private readonly maxEntries = 1000) {}

  /** Keeps a validator compiled already (by the PUT that stored its schema). */
  set(collectionId: string, etag: string, validator: PayloadValidator): void {
    const key = `${collectionId} ${etag}`;
    this.entries.delete(key);
    this.evictIfFull();
    this.entries.set(key, validator);
  }

  /** The validator of `schema` at this ETag, compiling it on first use. */
  get(collectionId: string, etag: string, schema: Record<string, unknown>): PayloadValidator {
    const key = `${collectionId} ${etag}`;
    let validator = this.entries.get(key);
    if (validator) {
      // Map order is insertion order: re-inserting keeps recently used entries last.
      this.entries.delete(key);
    } else {
      validator = compilePayloadSchema(schema);
      this.evictIfFull();
    }
    this.entries.set(key, validator);
    return validator;
  }

  private evictIfFull(): void {
    if (this.entries.size >= this.maxEntries) {
      // The least recently used: Map order is insertion order.
      this.entries.delete(this.entries.keys().next().value!);
    }
  }
}

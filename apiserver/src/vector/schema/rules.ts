/**
 * Pure rules of the schema routes: their request bodies and the `If-Match`
 * header. Whether the schema itself is a usable JSON Schema is validator.ts's
 * question.
 */
import {
  InvalidEnforcementMode,
  InvalidMaxExamples,
  InvalidSampleSize,
  InvalidScanMode,
  VectorValidationError,
} from '../../errors/catalogue.js';
import { validateDescription } from '../collections/rules.js';
import { ENFORCEMENT_MODES, type EnforcementMode } from './model.js';

/** The largest schema accepted, as JSON text: as much as one point's payload may be. */
export const MAX_SCHEMA_BYTES = 64 * 1024;

/** Bounds of `sample_size` (analyze and conformance). */
export const SAMPLE_SIZE = { min: 100, max: 10_000, default: 1000 } as const;

/** Bounds of `max_examples` (conformance). */
export const MAX_EXAMPLES = { min: 0, max: 100, default: 10 } as const;

/** Conformance scan modes: a prefix of the collection, or all of it. */
export const SCAN_MODES = ['sample', 'full'] as const;

/** One of {@link SCAN_MODES}. */
export type ScanMode = (typeof SCAN_MODES)[number];

/** A validated PUT body. */
export interface PutRequest {
  schema: Record<string, unknown>;
  /** The schema as stored (JSON text). */
  schemaJson: string;
  enforcementMode: EnforcementMode;
  description: string | null;
}

/** A validated analyze body. */
export interface AnalyzeRequest {
  sampleSize: number;
}

/** A validated conformance body. */
export interface ConformanceRequest {
  mode: ScanMode;
  /** Points read in `sample` mode; `full` reads every point (up to the time budget). */
  sampleSize: number;
  maxExamples: number;
}

function refuseUnknownKeys(body: Record<string, unknown>, allowed: readonly string[]): void {
  const other = Object.keys(body).find((key) => !allowed.includes(key));
  if (other !== undefined) {
    throw new VectorValidationError(`${other} is not accepted; send ${allowed.join(', ')}.`, {
      fields: { field: other },
    });
  }
}

/** Validates `PUT /schema/{collection}`: `{schema, enforcement_mode, description?}`. */
export function parsePut(body: Record<string, unknown>): PutRequest {
  refuseUnknownKeys(body, ['schema', 'enforcement_mode', 'description']);
  const schema = body.schema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new VectorValidationError('schema must be a JSON Schema object.', {
      fields: { field: 'schema' },
    });
  }
  const schemaJson = JSON.stringify(schema);
  const bytes = Buffer.byteLength(schemaJson);
  if (bytes > MAX_SCHEMA_BYTES) {
    throw new VectorValidationError(`schema is ${bytes} bytes; at most 64 KB.`, {
      fields: { field: 'schema', max: MAX_SCHEMA_BYTES },
    });
  }
  const mode = body.enforcement_mode;
  if (!ENFORCEMENT_MODES.includes(mode as EnforcementMode)) {
    throw new InvalidEnforcementMode(
      `enforcement_mode must be one of ${ENFORCEMENT_MODES.join(', ')}.`,
      { fields: { field: 'enforcement_mode', allowed: [...ENFORCEMENT_MODES] } },
    );
  }
  return {
    schema: schema as Record<string, unknown>,
    schemaJson,
    enforcementMode: mode as EnforcementMode,
    description: validateDescription(body.description),
  };
}

function sampleSize(value: unknown): number {
  if (value === undefined) return SAMPLE_SIZE.default;
  if (!isIntegerIn(value, SAMPLE_SIZE.min, SAMPLE_SIZE.max)) {
    throw new InvalidSampleSize('sample_size must be an integer from 100 to 10000.', {
      fields: { field: 'sample_size', min: SAMPLE_SIZE.min, max: SAMPLE_SIZE.max },
    });
  }
  return value;
}

/** Validates `POST /schema/{collection}/analyze`: `{sample_size?}`. */
export function parseAnalyze(body: Record<string, unknown>): AnalyzeRequest {
  refuseUnknownKeys(body, ['sample_size']);
  return { sampleSize: sampleSize(body.sample_size) };
}

/** Validates `POST /schema/{collection}/conformance`: `{mode?, sample_size?, max_examples?}`. */
export function parseConformance(body: Record<string, unknown>): ConformanceRequest {
  refuseUnknownKeys(body, ['mode', 'sample_size', 'max_examples']);
  const mode = body.mode ?? 'sample';
  if (!SCAN_MODES.includes(mode as ScanMode)) {
    throw new InvalidScanMode(`mode must be one of ${SCAN_MODES.join(', ')}.`, {
      fields: { field: 'mode', allowed: [...SCAN_MODES] },
    });
  }
  const maxExamples = body.max_examples ?? MAX_EXAMPLES.default;
  if (!isIntegerIn(maxExamples, MAX_EXAMPLES.min, MAX_EXAMPLES.max)) {
    throw new InvalidMaxExamples('max_examples must be an integer from 0 to 100.', {
      fields: { field: 'max_examples', min: MAX_EXAMPLES.min, max: MAX_EXAMPLES.max },
    });
  }
  return { mode: mode as ScanMode, sampleSize: sampleSize(body.sample_size), maxExamples };
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** A parsed `If-Match` header. */
export interface IfMatch {
  /** Whether the header names `etag` (the current ETag, or null when there is no schema). */
  matches(etag: string | null): boolean;
}

/**
 * Parses `If-Match` (RFC 9110): `*` matches any current schema; otherwise a
 * list of strong entity tags compared exactly (a tag without its quotes is
 * read as if quoted). A weak tag (`W/"..."`) never matches, as strong
 * comparison requires. Null when the header is absent.
 */
export function parseIfMatch(header: string | undefined): IfMatch | null {
  if (header === undefined || header.trim() === '') return null;
  const text = header.trim();
  if (text === '*') return { matches: (etag) => etag !== null };
  // Lenient about a tag sent without its quotes, as hand-written requests often do.
  const tags = text.split(',').map((tag) => tag.trim());
  const strong = new Set(
    tags
      .filter((tag) => tag !== '' && !tag.startsWith('W/'))
      .map((tag) => (tag.startsWith('"') ? tag : `"${tag}"`)),
  );
  return { matches: (etag) => etag !== null && strong.has(etag) };
}

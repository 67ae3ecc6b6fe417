/**
 * Turns yup schemas into OpenAPI 3.1 / JSON Schema 2020-12 objects, so the API
 * documentation is generated from the same schemas that validate requests.
 *
 * Only yup's public `describe()` output is read: the type, `optional`,
 * `nullable`, `oneOf`/`notOneOf`, the named tests with their params, `fields`,
 * `innerType`, `meta`, `label` and `default`. Whatever cannot be expressed in JSON
 * Schema (custom tests, `when` conditions, references, regex flags) is left out,
 * so the generated schema may accept more than yup does, never less. Callers can
 * patch any node through the `openapi` meta key, e.g.
 * `yup.string().meta({ openapi: { format: 'hostname' } })` (a key set to
 * `undefined` there removes that keyword).
 */
import type * as yup from 'yup';

/** A JSON Schema 2020-12 (OpenAPI 3.1 Schema Object) node. */
export type JsonSchema = Record<string, unknown>;

/** The options `describe()` takes to resolve `lazy` and `when` for a given value or context. */
export type DescribeOptions = Parameters<yup.Schema['describe']>[0];

type Description = yup.SchemaFieldDescription;
type Test = yup.SchemaDescription['tests'][number];

/**
 * Converts a yup schema into a JSON Schema 2020-12 object (as used by OpenAPI 3.1).
 *
 * - `string`: `min`/`max`/`length` become `minLength`/`maxLength` (a `required()`
 *   string also rejects `''`, so it gets at least `minLength: 1`), `matches` becomes
 *   `pattern` (the regex source), `email`/`uuid`/`url`/`datetime` become `format`
 *   `email`/`uuid`/`uri`/`date-time`.
 * - `number`: `min`/`max`/`moreThan`/`lessThan` become `minimum`/`maximum`/
 *   `exclusiveMinimum`/`exclusiveMaximum`; `integer()` gives `type: 'integer'`.
 * - `boolean`; `date` becomes a `date-time` string.
 * - `object`: `properties`, and `required` lists the fields that are not optional;
 *   `additionalProperties: false` only when the schema has a `noUnknown()` or
 *   `exact()` test. The default yup derives for an object from its fields is not
 *   emitted (each field documents its own default).
 * - `array`: `items` from the inner type, `min`/`max`/`length` become
 *   `minItems`/`maxItems`; `tuple` becomes `prefixItems`.
 * - `mixed` is unconstrained, `lazy`, references and unknown types become `{}`.
 * - `oneOf` becomes `enum` (without `undefined`; with `null` only when nullable);
 *   `notOneOf` becomes `not: { enum }`.
 * - `nullable()` adds `'null'` to `type` (and to `enum`).
 * - `description` comes from `meta({ description })` or else the label, `default`
 *   from the schema's default (a `Date` as an ISO string; note that `describe()`
 *   calls a `default(() => ...)` thunk, so its value at conversion time is what
 *   appears: override it with the `openapi` meta when that is not stable),
 *   `examples` from `meta({ example })`; finally `meta({ openapi: {...} })` is
 *   merged over the result (`undefined` values remove keywords).
 *
 * @param schema the yup schema (a `lazy` one converts to `{}` unless `options` resolve it)
 * @param options passed to `describe()` to resolve `lazy` and `when` for a value or context
 */
export function toJsonSchema(
  schema: yup.AnySchema | yup.Lazy<unknown>,
  options?: DescribeOptions,
): JsonSchema {
  return descriptionToJsonSchema(schema.describe(options));
}

/**
 * Converts the output of a yup schema's `describe()` into a JSON Schema object, by
 * the rules {@link toJsonSchema} documents.
 */
export function descriptionToJsonSchema(desc: Description): JsonSchema {
  let out: JsonSchema = {};
  if (isFull(desc)) {
    out = typed(desc);
    addEnums(out, desc);
    if (desc.nullable) addNull(out);
    // describe() already evaluates a `default(() => ...)` thunk; a function left here is not JSON.
    if (
      desc.default !== undefined &&
      typeof desc.default !== 'function' &&
      desc.type !== 'object'
    ) {
      out.default = toJsonValue(desc.default);
    }
  }
  const meta = 'meta' in desc && isPlainObject(desc.meta) ? desc.meta : {};
  const label = 'label' in desc ? desc.label : undefined;
  const description = typeof meta.description === 'string' ? meta.description : label;
  if (description) out.description = description;
  if (meta.example !== undefined) out.examples = [toJsonValue(meta.example)];
  if (isPlainObject(meta.openapi)) {
    for (const [key, value] of Object.entries(meta.openapi)) {
      if (value === undefined) delete out[key];
      else out[key] = value;
    }
  }
  return out;
}

/** A description of a real schema (not a lazy or a reference), which carries tests. */
function isFull(desc: Description): desc is yup.SchemaDescription {
  return 'tests' in desc && Array.isArray(desc.tests);
}

/** The type-specific keywords. */
function typed(desc: yup.SchemaDescription): JsonSchema {
  switch (desc.type) {
    case 'string':
      return stringSchema(desc.tests);
    case 'number':
      return numberSchema(desc.tests);
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date-time' };
    case 'object':
      return objectSchema(desc);
    case 'array':
      return arraySchema(desc);
    case 'tuple':
      return tupleSchema(desc);
    default:
      return {};
  }
}

const STRING_FORMATS: Record<string, string> = {
  email: 'email',
  uuid: 'uuid',
  url: 'uri',
  datetime: 'date-time',
};

function stringSchema(tests: Test[]): JsonSchema {
  const out: JsonSchema = { type: 'string' };
  let required = false;
  for (const { name, params } of tests) {
    if (name === 'required') required = true;
    else if (name === 'min') setNumber(out, 'minLength', params?.min);
    else if (name === 'max') setNumber(out, 'maxLength', params?.max);
    else if (name === 'length') {
      setNumber(out, 'minLength', params?.length);
      setNumber(out, 'maxLength', params?.length);
    } else if (name !== undefined && Object.hasOwn(STRING_FORMATS, name)) {
      out.format = STRING_FORMATS[name];
    } else if (name === 'matches' && isRegExp(params?.regex)) out.pattern = params.regex.source;
  }
  if (required && !((out.minLength as number | undefined) ?? 0)) out.minLength = 1;
  return out;
}

function numberSchema(tests: Test[]): JsonSchema {
  const out: JsonSchema = { type: 'number' };
  for (const { name, params } of tests) {
    if (name === 'integer') out.type = 'integer';
    else if (name === 'min') {
      setNumber(out, 'minimum', params?.min);
      setNumber(out, 'exclusiveMinimum', params?.more);
    } else if (name === 'max') {
      setNumber(out, 'maximum', params?.max);
      setNumber(out, 'exclusiveMaximum', params?.less);
    }
  }
  return out;
}

function objectSchema(desc: yup.SchemaDescription): JsonSchema {
  const out: JsonSchema = { type: 'object' };
  const fields = (desc as Partial<yup.SchemaObjectDescription>).fields ?? {};
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(fields)) {
    properties[key] = descriptionToJsonSchema(field);
    if ('optional' in field && field.optional === false) required.push(key);
  }
  out.properties = properties;
  if (required.length > 0) out.required = required;
  if (desc.tests.some((t) => t.name === 'noUnknown' || t.name === 'exact')) {
    out.additionalProperties = false;
  }
  return out;
}

function arraySchema(desc: yup.SchemaDescription): JsonSchema {
  const out: JsonSchema = { type: 'array' };
  const inner = (desc as yup.SchemaInnerTypeDescription).innerType;
  if (inner && !Array.isArray(inner)) out.items = descriptionToJsonSchema(inner);
  for (const { name, params } of desc.tests) {
    if (name === 'min') setNumber(out, 'minItems', params?.min);
    else if (name === 'max') setNumber(out, 'maxItems', params?.max);
    else if (name === 'length') {
      setNumber(out, 'minItems', params?.length);
      setNumber(out, 'maxItems', params?.length);
    }
  }
  return out;
}

function tupleSchema(desc: yup.SchemaDescription): JsonSchema {
  const inner = (desc as yup.SchemaInnerTypeDescription).innerType;
  const out: JsonSchema = { type: 'array' };
  if (Array.isArray(inner)) out.prefixItems = inner.map((d) => descriptionToJsonSchema(d));
  return out;
}

/** `oneOf` -> `enum`, `notOneOf` -> `not: { enum }`. */
function addEnums(out: JsonSchema, desc: yup.SchemaDescription): void {
  const allowed = desc.oneOf.filter((v) => v !== undefined && v !== null);
  // A value given as a reference (`oneOf([yup.ref('x')])`) is only known at validation time.
  if (allowed.length > 0 && !allowed.some(isRefDescription)) {
    out.enum = allowed.map(toJsonValue);
  }
  const forbidden = desc.notOneOf.filter(
    (v) => v !== undefined && v !== null && !isRefDescription(v),
  );
  if (forbidden.length > 0) out.not = { enum: forbidden.map(toJsonValue) };
}

/** Lets `null` through: added to `type` and to `enum`, 2020-12 style. */
function addNull(out: JsonSchema): void {
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
}

function setNumber(out: JsonSchema, key: string, value: unknown): void {
  // Params given as references (`min(yup.ref('x'))`) have no static value.
  if (typeof value === 'number' && Number.isFinite(value)) out[key] = value;
}

function toJsonValue(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

function isRegExp(value: unknown): value is RegExp {
  // Not `instanceof`: the regex may come from another realm (e.g. a jest VM context).
  return Object.prototype.toString.call(value) === '[object RegExp]';
}

function isRefDescription(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    value.type === 'ref' &&
    typeof value.key === 'string' &&
    Object.keys(value).length === 2
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

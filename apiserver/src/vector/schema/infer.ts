/**
 * Infers a JSON Schema from sampled payloads, for `POST /schema/{c}/analyze`.
 * The result is a starting point a user can PUT as it is: the types seen at
 * each path, and `required` for the keys every sampled object carried. It adds
 * no `additionalProperties: false` and no value constraints, since a sample
 * cannot tell what else is allowed.
 */

/** JSON types as JSON Schema names them. */
type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

/** Paths nested deeper than this are left unconstrained. */
const MAX_DEPTH = 8;
/** Distinct keys tracked per object; keys past it are left unconstrained. */
const MAX_KEYS_PER_OBJECT = 200;

/** What was seen at one path. */
interface Shape {
  /** Values seen here. */
  seen: number;
  types: Set<JsonType>;
  /** Objects seen here (the denominator of `required`). */
  objects: number;
  properties: Map<string, Shape>;
  items: Shape | null;
}

function emptyShape(): Shape {
  return { seen: 0, types: new Set(), objects: 0, properties: new Map(), items: null };
}

function typeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** What analyze reports about one path. */
export interface FieldSummary {
  field: string;
  types: string[];
  /** Sampled payloads (or array elements) in which the path was present. */
  present_in: number;
}

/** Accumulates payloads and produces the inferred schema. */
export class SchemaInference {
  private readonly root = emptyShape();

  /** Adds one payload (internal keys already removed). */
  add(payload: Record<string, unknown>): void {
    this.observe(this.root, payload, 0);
  }

  /** The inferred JSON Schema (draft 2020-12) of the payloads added so far. */
  schema(): Record<string, unknown> {
    return {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      ...this.toSchema(this.root, 0),
      type: 'object',
    };
  }

  /** One line per path seen, in the order first seen. */
  fields(): FieldSummary[] {
    const out: FieldSummary[] = [];
    const walk = (shape: Shape, prefix: string) => {
      for (const [key, child] of shape.properties) {
        const field = prefix === '' ? key : `${prefix}.${key}`;
        out.push({ field, types: typeNames(child.types), present_in: child.seen });
        walk(child, field);
        if (child.items) {
          const items = `${field}[]`;
          out.push({
            field: items,
            types: typeNames(child.items.types),
            present_in: child.items.seen,
          });
          walk(child.items, items);
        }
      }
    };
    walk(this.root, '');
    return out;
  }

  private observe(shape: Shape, value: unknown, depth: number): void {
    shape.seen++;
    const type = typeOf(value);
    shape.types.add(type);
    if (depth >= MAX_DEPTH) return;
    if (type === 'object') {
      shape.objects++;
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
        let sub = shape.properties.get(key);
        if (!sub) {
          if (shape.properties.size >= MAX_KEYS_PER_OBJECT) continue;
          sub = emptyShape();
          shape.properties.set(key, sub);
        }
        this.observe(sub, child, depth + 1);
      }
    } else if (type === 'array') {
      for (const item of value as unknown[]) {
        shape.items ??= emptyShape();
        this.observe(shape.items, item, depth + 1);
      }
    }
  }

  private toSchema(shape: Shape, depth: number): Record<string, unknown> {
    const types = typeNames(shape.types);
    const out: Record<string, unknown> = {};
    if (types.length === 1) out.type = types[0];
    else if (types.length > 1) out.type = types;
    if (depth >= MAX_DEPTH) return out;
    if (shape.properties.size > 0) {
      out.properties = Object.fromEntries(
        [...shape.properties].map(([key, child]) => [key, this.toSchema(child, depth + 1)]),
      );
      const required = [...shape.properties]
        .filter(([, child]) => child.seen === shape.objects)
        .map(([key]) => key);
      if (required.length > 0) out.required = required;
    }
    if (shape.items) out.items = this.toSchema(shape.items, depth + 1);
    return out;
  }
}

/** Sorted type names, `integer` folded into `number` when both were seen. */
function typeNames(types: Set<JsonType>): string[] {
  const names = new Set(types);
  if (names.has('number')) names.delete('integer');
  return [...names].sort();
}

/**
 * Helpers that keep TypeBox schemas inside the Kubernetes structural-schema
 * subset: every node typed, `nullable: true` instead of a union with null, no
 * `anyOf` of types. The CRD manifests and the TypeScript types both come from
 * the schemas built with these, so the two can never drift.
 */
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

/**
 * A schema whose value may also be `null` (OpenAPI v3.0 `nullable`, as
 * Kubernetes wants). Not for enumerations: kube-apiserver checks `enum` even
 * against a null value (with or without `null` listed), so an enumerated field
 * that can be unset is `Type.Optional` and left out instead.
 */
export function nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  if ('enum' in schema)
    throw new Error('nullable() of an enum: use Type.Optional and omit the field');
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}

/** A string enumeration, rendered as `{type: string, enum: [...]}`. */
export function stringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** An RFC 3339 timestamp string. */
export function dateTime(description?: string) {
  return Type.String({ format: 'date-time', ...(description ? { description } : {}) });
}

/** A list of strings treated as a set by server-side apply. */
export function stringSet(description?: string) {
  return Type.Array(Type.String(), {
    'x-kubernetes-list-type': 'set',
    ...(description ? { description } : {}),
  });
}

/** Shaped like `metav1.Condition`, the status vocabulary every reconciler writes. */
export const Condition = Type.Object({
  type: Type.String({ maxLength: 316 }),
  status: stringEnum(['True', 'False', 'Unknown'] as const),
  reason: Type.String({ maxLength: 1024 }),
  message: Type.String({ maxLength: 32768 }),
  lastTransitionTime: dateTime(),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});

/** One `metav1.Condition`. */
export type Condition = Static<typeof Condition>;

/** The `conditions` list, keyed by `type` for server-side apply. */
export const Conditions = Type.Array(Condition, {
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
});

/** Object metadata as the custom resources use it (a subset of `metav1.ObjectMeta`). */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | Date;
  deletionTimestamp?: string | Date;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Array<{
    apiVersion: string;
    kind: string;
    name: string;
    uid: string;
    controller?: boolean;
    blockOwnerDeletion?: boolean;
  }>;
}

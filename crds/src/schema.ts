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

/**
 * A string enumeration, rendered as `{type: string, enum: [...]}`. The
 * description is what `kubectl explain` shows; it should name what each value
 * means.
 */
export function stringEnum<const T extends readonly string[]>(
  values: T,
  options: { description: string; default?: T[number] },
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** An RFC 3339 timestamp string, described for `kubectl explain`. */
export function dateTime(description: string) {
  return Type.String({ format: 'date-time', description });
}

/** A list of strings treated as a set by server-side apply, described for `kubectl explain`. */
export function stringSet(description: string) {
  return Type.Array(Type.String(), { 'x-kubernetes-list-type': 'set', description });
}

/** `metav1.Condition`'s pattern of `type`: CamelCase, optionally prefixed by a DNS subdomain and `/`. */
export const CONDITION_TYPE_PATTERN =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$';

/** `metav1.Condition`'s pattern of `reason`: a CamelCase identifier (also `,` `:` and `_`). */
export const CONDITION_REASON_PATTERN = '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$';

/**
 * Shaped like `metav1.Condition`, the status vocabulary every reconciler
 * writes: the same fields, required fields, patterns, enumeration, formats and
 * length limits, so kube-apiserver refuses what it would refuse of a built-in
 * condition. Described in the words of the Kubernetes API reference.
 */
export const Condition = Type.Object(
  {
    type: Type.String({
      maxLength: 316,
      pattern: CONDITION_TYPE_PATTERN,
      description:
        'Type of the condition, in CamelCase (or in foo.example.com/CamelCase). Each type appears at most once in the list.',
    }),
    status: stringEnum(['True', 'False', 'Unknown'] as const, {
      description: 'Status of the condition: one of True, False or Unknown.',
    }),
    reason: Type.String({
      minLength: 1,
      maxLength: 1024,
      pattern: CONDITION_REASON_PATTERN,
      description:
        "A programmatic identifier, in CamelCase, of the reason for the condition's last transition. May not be empty.",
    }),
    message: Type.String({
      maxLength: 32768,
      description: 'A human-readable message with details about the transition. May be empty.',
    }),
    lastTransitionTime: dateTime(
      'When the condition last changed from one status to another (RFC 3339). A write that keeps the status keeps this time.',
    ),
    observedGeneration: Type.Optional(
      Type.Integer({
        format: 'int64',
        minimum: 0,
        description:
          "The object's metadata.generation the condition was set from; when lower than the current one, the condition is out of date.",
      }),
    ),
  },
  {
    description:
      'One observation of the state of the object, shaped like metav1.Condition. Written by the operator.',
  },
);

/** One `metav1.Condition`. */
export type Condition = Static<typeof Condition>;

/**
 * The `conditions` list, keyed by `type` for server-side apply; `description`
 * names the condition types the kind's reconciler writes.
 */
export function conditionList(description: string) {
  return Type.Array(Condition, {
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
    description,
  });
}

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

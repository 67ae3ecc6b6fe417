/** `metav1.Condition` bookkeeping for the status of the platform's resources. */
import type { Condition } from '../../crds/src/index.js';

/**
 * Returns `conditions` with `type` set to the given values; the transition
 * time moves only when the status itself changes, as Kubernetes expects.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  next: Omit<Condition, 'lastTransitionTime'>,
  now = new Date(),
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === next.type);
  const previous = index >= 0 ? list[index] : undefined;
  const lastTransitionTime =
    previous && previous.status === next.status
      ? previous.lastTransitionTime
      : now.toISOString().replace(/\.\d+Z$/, 'Z');
  const condition: Condition = { ...next, lastTransitionTime };
  if (index >= 0) list[index] = condition;
  else list.push(condition);
  return list;
}

/** True when the condition `type` is `True`. */
export function isTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

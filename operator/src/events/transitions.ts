/**
 * What becomes a Kubernetes Event: a change of a condition's status or reason
 * (not of its message, nor a write that repeats it), so a reconcile that
 * changes nothing records nothing. Pure; each kind's decisions say which of its
 * conditions' transitions are worth an Event and which are warnings.
 */
import type { Condition } from '../../../crds/src/index.js';

/** An Event as a controller asks for it; the recorder adds the object, times and series. */
export interface EventNote {
  type: 'Normal' | 'Warning';
  /** CamelCase, like a condition's reason. */
  reason: string;
  /** Human-readable; cut to the API's 1 kB by the recorder. */
  note: string;
}

/** The condition `type` before and after a status write, when its status or reason changed. */
export interface ConditionTransition {
  from: Condition | undefined;
  to: Condition;
}

/**
 * Reasons compared without case or underscores: an upgrade that only respells
 * a reason (running → Running, usage_paused → UsagePaused) is no transition.
 */
const spelling = (reason: string) => reason.replace(/_/g, '').toLowerCase();

/** The transition of condition `type` from `previous` to `next`, or null when there is none. */
export function transitionOf(
  previous: readonly Condition[] | undefined,
  next: readonly Condition[] | undefined,
  type: string,
): ConditionTransition | null {
  const to = next?.find((c) => c.type === type);
  if (!to) return null;
  const from = previous?.find((c) => c.type === type);
  if (from && from.status === to.status && spelling(from.reason) === spelling(to.reason))
    return null;
  return { from, to };
}

/** An Event of `condition`'s reason and message, a warning when `warning` says so. */
export function eventOf(condition: Condition, warning: boolean): EventNote {
  return {
    type: warning ? 'Warning' : 'Normal',
    reason: condition.reason,
    note: condition.message,
  };
}

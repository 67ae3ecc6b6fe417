/**
 * Classifies errors of the Kubernetes client: the API's own answers carry a numeric
 * `code`; anything else (refused connection, timeout, TLS) means the API was not reached.
 */

/** The HTTP status the Kubernetes API answered with, or undefined when it did not answer. */
export function kubeStatus(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** True when the Kubernetes API answered 404. */
export function isKubeNotFound(err: unknown): boolean {
  return kubeStatus(err) === 404;
}

/** True when the Kubernetes API answered 409 (exists, or a stale resourceVersion). */
export function isKubeConflict(err: unknown): boolean {
  return kubeStatus(err) === 409;
}

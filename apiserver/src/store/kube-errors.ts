/**
 * Classifies errors of the Kubernetes client: the API's own answers carry a
 * numeric `code`; anything else (refused connection, timeout, TLS) means the
 * API was unreachable, which routes report as 503 SERVICE_UNAVAILABLE.
 */
import { ServiceUnavailable } from '../errors/catalogue.js';

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

/**
 * Rethrows `err` as 503 SERVICE_UNAVAILABLE when the API could not be reached
 * or failed on its side (5xx); anything else is rethrown as it is.
 */
export function asUnavailable(err: unknown, what = 'The cluster API'): never {
  const status = kubeStatus(err);
  if (status === undefined || status >= 500) {
    throw new ServiceUnavailable(
      `${what} is unreachable; nothing was written. Retry in a few seconds.`,
      {
        cause: err,
      },
    );
  }
  throw err;
}

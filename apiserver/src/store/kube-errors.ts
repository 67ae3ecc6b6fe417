/**
 * How the API server reports a Kubernetes API it could not use: 503
 * SERVICE_UNAVAILABLE. The classifiers themselves live in `common/kube/errors.ts`.
 */
import { kubeStatus } from '../../../common/kube/errors.js';
import { ServiceUnavailable } from '../errors/catalogue.js';

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

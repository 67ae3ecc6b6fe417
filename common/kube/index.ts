/**
 * The Kubernetes glue the API server and the operator share: the typed client of the
 * platform's custom resources, the resilient informer, owner references and queue keys,
 * API error classification, backoff, the work queue and leader election.
 */
export * from './backoff.js';
export * from './errors.js';
export * from './informer.js';
export * from './owner.js';
export * from './custom-resources.js';
export * from './work-queue.js';
export * from './leader-election.js';

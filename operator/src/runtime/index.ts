/** The operator's reusable machinery: work queue, leader election, watches, owner references. */
export * from './work-queue.js';
export * from './leader-election.js';
export * from './watch.js';
export * from './owner.js';

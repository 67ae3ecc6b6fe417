/**
 * A slot's answer to a filter as one byte, kept per slot by a broad filter's plan
 * (filter-plan.ts), filled from the payload indexes (filter-answers.ts) and read directly
 * by the graph walk (hnsw.ts).
 */

/** An answer not known yet: the slot's payload must be evaluated. */
export const UNKNOWN = 0;
/** The slot passes the filter. */
export const PASSES = 1;
/** The slot fails the filter. */
export const FAILS = 2;

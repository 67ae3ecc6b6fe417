/**
 * Page state of the explorer's browse: scroll pages of 50 points, keyset by
 * the engine's `next_page_offset`. The offset each visited page started at is
 * kept, so "previous" goes back without re-reading from the start.
 */

/** Points per explorer page (the contract's number). */
export const PAGE_SIZE = 50;

/** A point id as the engine gives it. */
export type PointId = string | number;

/** Where the browse is. */
export interface PageState {
  /** The offset each page from the first to the current one started at (null: the start). */
  starts: (PointId | null)[];
  /** The current page's `next_page_offset` once read (null: no next page). */
  next: PointId | null;
}

/** The first page. */
export function firstPage(): PageState {
  return { starts: [null], next: null };
}

/** The offset the current page is read from. */
export function currentStart(state: PageState): PointId | null {
  return state.starts[state.starts.length - 1] ?? null;
}

/** The current page's number, from 1. */
export function pageNumber(state: PageState): number {
  return state.starts.length;
}

/** The state once the current page was read and answered `next`. */
export function withNext(state: PageState, next: PointId | null): PageState {
  return { ...state, next };
}

/** The next page, or the same state when there is none. */
export function nextPage(state: PageState): PageState {
  if (state.next === null) return state;
  return { starts: [...state.starts, state.next], next: null };
}

/** The previous page, or the same state on the first. */
export function previousPage(state: PageState): PageState {
  if (state.starts.length <= 1) return state;
  return { starts: state.starts.slice(0, -1), next: null };
}

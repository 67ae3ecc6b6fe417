/**
 * Where a deployment stands in each region it is placed in, from the copies
 * each region's operator reconciled: a region is ready when its copy is
 * `active` there, and pending while it has no copy yet (being added, or its
 * API did not answer).
 */

/** What one region's operator observed of its copy. */
export interface RegionObservation {
  region: string;
  state: string | undefined;
}

/** The Deployment record's region fields. */
export interface RegionalStatus {
  regions: string[];
  pendingRegions: string[];
  regionsTotal: number;
  regionsReady: number;
}

/** The region fields of a deployment placed in `placement`, given the copies found. */
export function regionalStatus(
  placement: readonly string[],
  copies: readonly RegionObservation[],
): RegionalStatus {
  const observed = new Map(copies.map((c) => [c.region, c.state]));
  return {
    regions: [...placement],
    pendingRegions: placement.filter((r) => !observed.has(r)),
    regionsTotal: placement.length,
    regionsReady: placement.filter((r) => observed.get(r) === 'active').length,
  };
}

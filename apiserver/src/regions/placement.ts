/**
 * Where an agent and its deployments are placed: the regions whose APIs hold a
 * copy of their custom resources. The API server decides it when it creates
 * the agent (its workspace's regions, or its own, the home region by default)
 * and writes it on every copy, so any copy tells where the others are. Each
 * copy also carries the `svc.dev/region` label of the region it is in.
 */
import { LABELS } from '../../../crds/src/index.js';

/** The annotation holding the comma-separated placement. */
export const PLACEMENT_ANNOTATION = 'svc.dev/regions';

/** What placement is read from and written to. */
interface Annotated {
  metadata: { annotations?: Record<string, string>; labels?: Record<string, string> };
}

/** The regions `object` is placed in; `fallback` (home) when it says none (objects written before regions). */
export function placementOf(object: Annotated, fallback: readonly string[]): string[] {
  const value = object.metadata.annotations?.[PLACEMENT_ANNOTATION];
  const regions = value
    ?.split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  return regions && regions.length > 0 ? regions : [...fallback];
}

/** Records `regions` as the placement of `object`. */
export function setPlacement(object: Annotated, regions: readonly string[]): void {
  object.metadata.annotations = {
    ...object.metadata.annotations,
    [PLACEMENT_ANNOTATION]: [...new Set(regions)].join(','),
  };
}

/** Labels `object` as the copy in `region`. */
export function setRegionLabel(object: Annotated, region: string): void {
  object.metadata.labels = { ...object.metadata.labels, [LABELS.region]: region };
}

/**
 * Geo conditions with Qdrant's arithmetic: a strict bounding box that may cross the
 * antimeridian, haversine distance on a sphere of the mean Earth radius, and polygons
 * whose boundary is outside (the `geo` crate's `contains`).
 */
import type { GeoPoint } from './types.js';

const EARTH_RADIUS_M = 6371008.8;

/** Great-circle distance in metres. */
export function haversineMeters(a: GeoPoint, b: GeoPoint): number {
  const toRad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * toRad;
  const dLon = (b.lon - a.lon) * toRad;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.lat * toRad) * Math.cos(b.lat * toRad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(h));
}

/** Whether a point lies strictly inside a box given by its top-left and bottom-right corners. */
export function inBoundingBox(p: GeoPoint, topLeft: GeoPoint, bottomRight: GeoPoint): boolean {
  const lonOk =
    topLeft.lon > bottomRight.lon
      ? p.lon > topLeft.lon || p.lon < bottomRight.lon
      : topLeft.lon < p.lon && p.lon < bottomRight.lon;
  return lonOk && bottomRight.lat < p.lat && p.lat < topLeft.lat;
}

function onSegment(p: GeoPoint, a: GeoPoint, b: GeoPoint): boolean {
  const cross = (b.lon - a.lon) * (p.lat - a.lat) - (b.lat - a.lat) * (p.lon - a.lon);
  if (Math.abs(cross) > 1e-12) return false;
  return (
    Math.min(a.lon, b.lon) <= p.lon &&
    p.lon <= Math.max(a.lon, b.lon) &&
    Math.min(a.lat, b.lat) <= p.lat &&
    p.lat <= Math.max(a.lat, b.lat)
  );
}

/** -1 outside, 0 on the boundary, 1 inside a closed ring (planar lon/lat, like `geo`). */
function ringPosition(p: GeoPoint, ring: GeoPoint[]): -1 | 0 | 1 {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i]!;
    const b = ring[j]!;
    if (onSegment(p, a, b)) return 0;
    if (a.lat > p.lat !== b.lat > p.lat) {
      const x = ((b.lon - a.lon) * (p.lat - a.lat)) / (b.lat - a.lat) + a.lon;
      if (p.lon < x) inside = !inside;
    }
  }
  return inside ? 1 : -1;
}

/** Whether a point is in the polygon's interior: inside the exterior, outside every hole. */
export function inPolygon(p: GeoPoint, exterior: GeoPoint[], interiors: GeoPoint[][]): boolean {
  if (ringPosition(p, exterior) !== 1) return false;
  return interiors.every((hole) => ringPosition(p, hole) === -1);
}

/**
 * Pure rules of collection creation: input validation, distance
 * normalisation, per-plan caps and region resolution. No I/O, unit-tested.
 */
import type { Tier } from '../../../../crds/src/index.js';
import type { Plan } from '../../accounts/plans.js';
import {
  CollectionRegionsEmpty,
  CollectionRegionsNotInScope,
  StarterRegionConsistency,
  VectorValidationError,
} from '../../errors/catalogue.js';
import { COLLECTION_NAME, type Distance } from './model.js';

const DISTANCES: Readonly<Record<string, Distance>> = {
  cosine: 'Cosine',
  euclid: 'Euclid',
  euclidean: 'Euclid',
  dot: 'Dot',
  manhattan: 'Manhattan',
};

/** Collections per account and environment when the plan names no `vectorCollectionCap`. */
export const DEFAULT_COLLECTION_CAPS: Readonly<Record<Tier, number>> = {
  free: 5,
  starter: 25,
  performance: 200,
  enterprise: 2000,
};

/** Plans below this tier are single-region: the contract's replication starts at performance. */
const SINGLE_REGION_TIERS: readonly Tier[] = ['free', 'starter'];

/** A validated create request. */
export interface CreateRequest {
  name: string;
  size: number;
  distance: Distance;
  description: string | null;
  regions: string[] | undefined;
}

const CREATE_KEYS = new Set(['name', 'vectors', 'description', 'regions']);

function invalid(field: string, message: string, extra: Record<string, unknown> = {}): never {
  throw new VectorValidationError(message, { fields: { field, ...extra } });
}

/** Validates a description: at most 500 characters, no angle brackets; null clears it. */
export function validateDescription(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') invalid('description', 'description must be a string.');
  if (value.length > 500)
    invalid('description', 'description is at most 500 characters.', { max: 500 });
  if (/[<>]/.test(value)) invalid('description', 'description may not contain < or >.');
  return value;
}

/** Validates a collection name from a path or body. */
export function validateName(value: unknown): string {
  if (typeof value !== 'string' || !COLLECTION_NAME.test(value)) {
    invalid('name', 'name must be 1 to 100 characters from [a-zA-Z0-9_-].', { max: 100 });
  }
  return value;
}

/**
 * Validates `POST /collections`. Any key beyond name, vectors, description and
 * regions is refused: engine tuning is fixed server-side and "not accepted".
 */
export function parseCreate(body: unknown): CreateRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    invalid('body', 'The body must be a JSON object.');
  }
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!CREATE_KEYS.has(key)) {
      invalid(key, `${key} is not accepted: engine configuration is fixed server-side.`);
    }
  }
  const name = validateName(input.name);
  const vectors = input.vectors as Record<string, unknown> | undefined;
  if (typeof vectors !== 'object' || vectors === null || Array.isArray(vectors)) {
    invalid('vectors', 'vectors must be {size, distance}.');
  }
  for (const key of Object.keys(vectors)) {
    if (key !== 'size' && key !== 'distance') {
      invalid(`vectors.${key}`, `vectors.${key} is not accepted: only size and distance.`);
    }
  }
  const size = vectors.size;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 65536) {
    invalid('vectors.size', 'vectors.size must be an integer from 1 to 65536.', { max: 65536 });
  }
  const distance =
    typeof vectors.distance === 'string' ? DISTANCES[vectors.distance.toLowerCase()] : undefined;
  if (!distance) {
    invalid(
      'vectors.distance',
      'vectors.distance must be cosine, euclid, euclidean, dot or manhattan.',
    );
  }
  let regions: string[] | undefined;
  if (input.regions !== undefined) {
    if (!Array.isArray(input.regions) || !input.regions.every((r) => typeof r === 'string')) {
      invalid('regions', 'regions must be an array of strings.');
    }
    regions = [...new Set(input.regions as string[])];
  }
  return { name, size, distance, description: validateDescription(input.description), regions };
}

/** The collection cap of a plan (`vectorCollectionCap` in SVC_PLANS_JSON overrides the default). */
export function collectionCap(plan: Plan): number {
  const override = (plan as Plan & { vectorCollectionCap?: unknown }).vectorCollectionCap;
  return typeof override === 'number' ? override : DEFAULT_COLLECTION_CAPS[plan.tier];
}

/**
 * The regions a new collection lives in. `home` is the region a
 * single-region account is tied to (its first collection's, else its home
 * region). Omitted regions default to it.
 */
export function resolveRegions(
  requested: string[] | undefined,
  plan: Plan,
  offered: readonly string[],
  home: string,
): string[] {
  // A home region this installation does not offer (configuration changed) falls back to its default.
  const fixedRegion = offered.includes(home) ? home : offered[0]!;
  const regions = requested ?? [fixedRegion];
  if (regions.length === 0 || regions[0] === undefined) {
    throw new CollectionRegionsEmpty('No regions resolved for the collection.');
  }
  const outside = regions.filter((r) => !offered.includes(r));
  if (outside.length > 0) {
    throw new CollectionRegionsNotInScope(`Regions not offered: ${outside.join(', ')}.`, {
      fields: { allowed: [...offered] },
    });
  }
  if (SINGLE_REGION_TIERS.includes(plan.tier)) {
    if (regions.length > 1) {
      throw new CollectionRegionsNotInScope(
        `The ${plan.tier} plan is single-region; replication begins at the performance plan.`,
        { fields: { allowed: [fixedRegion] } },
      );
    }
    if (regions[0] !== fixedRegion) {
      throw new StarterRegionConsistency(
        `The ${plan.tier} plan keeps every collection in ${fixedRegion}.`,
        { fields: { existing_regions: [fixedRegion] } },
      );
    }
  } else if (regions.length > plan.regionCap) {
    throw new CollectionRegionsNotInScope(
      `The ${plan.tier} plan allows at most ${plan.regionCap} regions.`,
      { fields: { allowed: [...offered], max: plan.regionCap } },
    );
  }
  return regions;
}

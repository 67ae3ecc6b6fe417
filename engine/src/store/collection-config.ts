/**
 * What a collection is created with, kept in its `config.json`.
 */
import type { Distance } from '../distance.js';
import type { ScalarQuantizationConfig } from '../quantization/scalar.js';

/** A collection's fixed settings. */
export interface CollectionConfig {
  name: string;
  size: number;
  distance: Distance;
  /** Qdrant's HNSW defaults, reported in collection info and used to build the index. */
  hnsw: { m: number; efConstruct: number; fullScanThreshold: number };
  /** Int8 codes for the graph walk (Qdrant's `quantization_config.scalar`); off when absent. */
  quantization?: ScalarQuantizationConfig;
}

/** The settings of a new collection with Qdrant's HNSW defaults. */
export function newCollectionConfig(
  name: string,
  size: number,
  distance: Distance,
): CollectionConfig {
  return { name, size, distance, hnsw: { m: 16, efConstruct: 100, fullScanThreshold: 10000 } };
}

/**
 * Collection routes: create (`PUT`), info, list, exists, update (accepted, nothing
 * tunable changes) and delete, with Qdrant's result shapes.
 */
import { DISTANCES } from '../distance.js';
import type { Distance } from '../distance.js';
import { formatError, EngineError } from '../errors.js';
import type { Router } from '../http/router.js';
import { objectBody, optional, readCount } from '../request/fields.js';
import { newCollectionConfig } from '../store/collection-config.js';
import type { Engine } from '../store/engine.js';
import { DELETED_THRESHOLD, VACUUM_MIN_VECTOR_NUMBER } from '../store/vacuum.js';

function readVectorsConfig(raw: unknown): { size: number; distance: Distance } {
  const vectors = objectBody(raw, 'vectors');
  if (vectors.size === undefined && vectors.distance === undefined) {
    throw new EngineError(
      400,
      'Bad request: this engine supports one unnamed dense vector per collection ({size, distance})',
    );
  }
  if (vectors.size === undefined) throw formatError('vectors: missing field `size`');
  const size = readCount(vectors, 'size', 0, 1);
  if (size > 65536)
    throw new EngineError(
      422,
      'Validation error in JSON body: [vectors.size: value must be 65536 or less]',
    );
  const distance = vectors.distance;
  if (!DISTANCES.includes(distance as Distance)) {
    throw formatError(
      `vectors.distance: unknown variant \`${String(distance)}\`, expected one of \`Cosine\`, \`Euclid\`, \`Dot\`, \`Manhattan\``,
    );
  }
  return { size, distance: distance as Distance };
}

/** Registers the collection routes. */
export function collectionRoutes(router: Router, engine: Engine): void {
  router.on('GET', '/collections', () => ({
    collections: engine.names().map((name) => ({ name })),
  }));

  router.on('PUT', '/collections/{name}', async ({ params, body }) => {
    const request = objectBody(body ?? {});
    if (optional(request, 'vectors') === undefined) throw formatError('missing field `vectors`');
    const { size, distance } = readVectorsConfig(request.vectors);
    const config = newCollectionConfig(params.name!, size, distance);
    const hnsw = optional(request, 'hnsw_config');
    if (hnsw !== undefined) {
      const h = objectBody(hnsw, 'hnsw_config');
      config.hnsw.m = readCount(h, 'm', config.hnsw.m, 2);
      config.hnsw.efConstruct = readCount(h, 'ef_construct', config.hnsw.efConstruct, 4);
      config.hnsw.fullScanThreshold = readCount(
        h,
        'full_scan_threshold',
        config.hnsw.fullScanThreshold,
      );
    }
    await engine.create(config);
    return true;
  });

  router.on('PATCH', '/collections/{name}', ({ params }) => {
    engine.get(params.name!);
    return true;
  });

  router.on('DELETE', '/collections/{name}', ({ params }) => engine.delete(params.name!));

  router.on('GET', '/collections/{name}/exists', ({ params }) => ({
    exists: engine.has(params.name!),
  }));

  router.on('GET', '/collections/{name}', ({ params }) => {
    const collection = engine.get(params.name!);
    const { config, points, vectorIndex } = collection;
    // fromEntries defines own properties, so even a field named `__proto__` is listed.
    const payloadSchema = Object.fromEntries(
      collection.indexSchemas().map(({ field, schema, points: count }) => [
        field,
        {
          data_type: schema.type,
          ...(schema.params ? { params: schema.params } : {}),
          points: count,
        },
      ]),
    );
    return {
      status: vectorIndex.isBuilding ? 'yellow' : 'green',
      optimizer_status: 'ok',
      indexed_vectors_count: vectorIndex.indexedCount,
      points_count: points.liveCount,
      segments_count: 1,
      config: {
        params: {
          vectors: { size: config.size, distance: config.distance },
          shard_number: 1,
          replication_factor: 1,
          write_consistency_factor: 1,
          on_disk_payload: false,
        },
        hnsw_config: {
          m: config.hnsw.m,
          ef_construct: config.hnsw.efConstruct,
          full_scan_threshold: config.hnsw.fullScanThreshold,
          max_indexing_threads: 0,
          on_disk: false,
        },
        optimizer_config: {
          deleted_threshold: DELETED_THRESHOLD,
          vacuum_min_vector_number: VACUUM_MIN_VECTOR_NUMBER,
          default_segment_number: 0,
          max_segment_size: null,
          memmap_threshold: null,
          indexing_threshold: 10000,
          flush_interval_sec: 5,
          max_optimization_threads: null,
        },
        wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
        quantization_config: null,
      },
      payload_schema: payloadSchema,
    };
  });
}

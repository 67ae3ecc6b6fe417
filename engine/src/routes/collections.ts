/**
 * Collection routes: create (`PUT`), info, list, exists, update (accepted, nothing
 * tunable changes) and delete, with Qdrant's result shapes.
 */
import { DISTANCES } from '../distance.js';
import type { Distance } from '../distance.js';
import { formatError, EngineError } from '../errors.js';
import type { Router } from '../http/router.js';
import { objectBody, optional, readBool, readCount } from '../request/fields.js';
import { expectFields, notSupported, refuseFields } from '../request/strict.js';
import { presentQuantization, readQuantizationConfig } from '../request/quantization-config.js';
import { newCollectionConfig } from '../store/collection-config.js';
import type { Engine } from '../store/engine.js';
import { DELETED_THRESHOLD, VACUUM_MIN_VECTOR_NUMBER } from '../store/vacuum.js';

/** The fields of Qdrant's collection create body. */
const CREATE_FIELDS = [
  'vectors',
  'shard_number',
  'sharding_method',
  'replication_factor',
  'write_consistency_factor',
  'on_disk_payload',
  'hnsw_config',
  'wal_config',
  'optimizers_config',
  'init_from',
  'quantization_config',
  'sparse_vectors',
  'strict_mode_config',
  'metadata',
];

/** Create fields this engine has nothing for (sparse vectors, strict mode, ...). */
const CREATE_UNSUPPORTED = [
  'sharding_method',
  'wal_config',
  'optimizers_config',
  'init_from',
  'sparse_vectors',
  'strict_mode_config',
  'metadata',
];

/** The fields of Qdrant's collection update body; this engine changes none of them. */
const UPDATE_FIELDS = [
  'vectors',
  'optimizers_config',
  'params',
  'hnsw_config',
  'quantization_config',
  'sparse_vectors',
  'strict_mode_config',
  'metadata',
];

const HNSW_FIELDS = [
  'm',
  'ef_construct',
  'full_scan_threshold',
  'max_indexing_threads',
  'on_disk',
  'payload_m',
  'inline_storage',
];

/** A count that must be 1 when given: this engine has one shard and one replica. */
function readSingle(body: Record<string, unknown>, key: string): void {
  if (optional(body, key) === undefined) return;
  if (readCount(body, key, 1, 1) !== 1) throw notSupported(key, 'one shard, one replica');
}

function readVectorsConfig(raw: unknown): { size: number; distance: Distance } {
  const vectors = objectBody(raw, 'vectors');
  if (vectors.size !== undefined || vectors.distance !== undefined) {
    expectFields(
      vectors,
      [
        'size',
        'distance',
        'hnsw_config',
        'quantization_config',
        'on_disk',
        'datatype',
        'multivector_config',
      ],
      'vectors',
    );
    refuseFields(vectors, ['hnsw_config', 'quantization_config', 'multivector_config'], 'vectors');
    readBool(vectors, 'on_disk', false);
    const datatype = optional(vectors, 'datatype');
    if (datatype !== undefined && datatype !== 'float32') {
      throw notSupported('vectors.datatype', 'vectors are float32');
    }
  }
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
    expectFields(request, CREATE_FIELDS);
    refuseFields(request, CREATE_UNSUPPORTED);
    if (optional(request, 'vectors') === undefined) throw formatError('missing field `vectors`');
    readSingle(request, 'shard_number');
    readSingle(request, 'replication_factor');
    readSingle(request, 'write_consistency_factor');
    readBool(request, 'on_disk_payload', false);
    const { size, distance } = readVectorsConfig(request.vectors);
    const config = newCollectionConfig(params.name!, size, distance);
    const quantization = readQuantizationConfig(optional(request, 'quantization_config'), size);
    if (quantization) config.quantization = quantization;
    const hnsw = optional(request, 'hnsw_config');
    if (hnsw !== undefined) {
      const h = objectBody(hnsw, 'hnsw_config');
      expectFields(h, HNSW_FIELDS, 'hnsw_config');
      readCount(h, 'max_indexing_threads', 0);
      readBool(h, 'on_disk', false);
      readBool(h, 'inline_storage', false);
      if (optional(h, 'payload_m') !== undefined) throw notSupported('hnsw_config.payload_m');
      config.hnsw.m = readCount(h, 'm', config.hnsw.m, 2, 1024);
      config.hnsw.efConstruct = readCount(h, 'ef_construct', config.hnsw.efConstruct, 4, 100_000);
      config.hnsw.fullScanThreshold = readCount(
        h,
        'full_scan_threshold',
        config.hnsw.fullScanThreshold,
      );
    }
    await engine.create(config);
    return true;
  });

  // Nothing of a collection is tunable after creation here: an update asking for a change
  // is refused by name rather than answered `true` with nothing changed.
  router.on('PATCH', '/collections/{name}', ({ params, body }) => {
    engine.get(params.name!);
    const request = objectBody(body ?? {});
    expectFields(request, UPDATE_FIELDS);
    refuseFields(request, UPDATE_FIELDS);
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
        quantization_config: presentQuantization(config.quantization),
      },
      payload_schema: payloadSchema,
    };
  });
}

/**
 * The engine's configuration, read from environment variables in this one place. Every
 * value has a default that works on one machine, except the API key: the engine refuses
 * to start without a strong one (`npm start` generates it).
 */
import { envInt, envString } from '../../common/env.js';
import { requireSecret } from '../../common/secrets.js';

/** Everything the engine reads from its environment. */
export interface EngineConfig {
  /** `SVC_ENGINE_HOST`: interface to listen on. */
  host: string;
  /** `SVC_ENGINE_PORT`: port (0 picks a free one; the ready line says which). */
  port: number;
  /**
   * `SVC_ENGINE_METRICS_PORT`: the Prometheus listener (`GET /metrics`) on the
   * same host, unauthenticated like a health check and holding no collection
   * names (0, the default, picks a free port; -1 serves none).
   */
  metricsPort: number;
  /** `SVC_ENGINE_DATA_DIR`: where collections, logs and snapshots live. */
  dataDir: string;
  /** `SVC_LOG_LEVEL`. */
  logLevel: string;
  /** `SVC_ENGINE_INDEX_THRESHOLD`: vectors before a collection gets an HNSW index. */
  indexThreshold: number;
  /** `SVC_ENGINE_INDEX_IDLE_MS`: quiet time before a small tail of new points is indexed. */
  indexIdleMs: number;
  /** `SVC_ENGINE_SNAPSHOT_MB`: write-ahead log size that triggers a snapshot. */
  snapshotBytes: number;
  /** `SVC_ENGINE_MAX_BODY_MB`: largest request body (Qdrant's default is 32). */
  maxBodyBytes: number;
  /**
   * `SVC_ENGINE_API_KEY` (or a file named by `SVC_ENGINE_API_KEY_FILE`): the key every
   * request but the health checks must carry, in Qdrant's `api-key` header or as
   * `Authorization: Bearer` (required).
   */
  apiKey: string;
}

/** Reads the configuration from `env`. */
export function readEngineConfig(env = process.env): EngineConfig {
  return {
    host: envString('SVC_ENGINE_HOST', '127.0.0.1', env),
    port: envInt('SVC_ENGINE_PORT', 6333, { min: 0, max: 65535 }, env),
    metricsPort: envInt('SVC_ENGINE_METRICS_PORT', 0, { min: -1, max: 65535 }, env),
    dataDir: envString('SVC_ENGINE_DATA_DIR', '.dev/engine', env),
    logLevel: envString('SVC_LOG_LEVEL', 'info', env),
    indexThreshold: envInt('SVC_ENGINE_INDEX_THRESHOLD', 20_000, { min: 1 }, env),
    indexIdleMs: envInt('SVC_ENGINE_INDEX_IDLE_MS', 1000, { min: 0 }, env),
    snapshotBytes: envInt('SVC_ENGINE_SNAPSHOT_MB', 256, { min: 1 }, env) * 1024 * 1024,
    maxBodyBytes: envInt('SVC_ENGINE_MAX_BODY_MB', 64, { min: 1 }, env) * 1024 * 1024,
    apiKey: requireSecret('SVC_ENGINE_API_KEY', env),
  };
}

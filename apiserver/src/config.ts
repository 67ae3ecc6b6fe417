/**
 * The API server's configuration, read once from environment variables. Every
 * value has a default that works for the single-machine platform, except the
 * two secrets: the internal secret and the engine's API key must be given
 * (`npm start` generates them), and a missing or guessable one stops the start.
 */
import { envBool, envInt, envOptional, envString } from '../../common/env.js';
import { requireSecret } from '../../common/secrets.js';
import { loadRegionRegistry } from './regions/load-regions.js';
import type { RegionRegistry } from './regions/registry.js';
import type { CodehostConfig } from './codehost/assemble.js';

/** Configuration of the API server process. */
export interface ApiServerConfig {
  /** Interface the front doors bind to. */
  host: string;
  /** Port of the control-plane front door (`/api/v1`). */
  controlPlanePort: number;
  /** Port of the agent edge (`<name>-<6>.<agent_domain>`). */
  edgePort: number;
  /** Port of the vector data plane (`SVC_VECTORS_PORT`). */
  vectorsPort: number;
  /**
   * The Prometheus listener (`GET /metrics`): `SVC_METRICS_HOST` (default the
   * front doors' host) and `SVC_METRICS_PORT` (default 0, a free port; -1 serves none).
   */
  metrics: { host: string; port: number };
  /** Base URL of the home region's vector engine or Qdrant (`SVC_ENGINE_URL`, or the registry's first region). */
  engineUrl: string;
  /** The engine's (or Qdrant's) API key, sent on every request to it (`SVC_ENGINE_API_KEY[_FILE]`). */
  engineApiKey: string;
  /** Whether concurrent searches of a collection reach the engine as one batch (`SVC_VECTOR_COALESCE`). */
  coalesceSearches: boolean;
  /** MongoDB connection string (FerretDB on one machine). */
  mongoUri: string;
  /** The home region's kubeconfig path; unset means in-cluster or `~/.kube/config`. */
  kubeconfig: string | undefined;
  /** Domain under which agent addresses live (`<name>-<6>.<domain>`). */
  agentDomain: string;
  /** Names of the regions this installation offers; the first is the default home region. */
  regions: string[];
  /** Every region with its Kubernetes API, engine and public URL (regions/load-regions.ts). */
  registry: RegionRegistry;
  /** `SVC_PLANS_JSON`: overrides of the per-plan numbers (see accounts/plans.ts). */
  plansJson: string | undefined;
  /** Largest code archive a deploy accepts (`SVC_MAX_ARCHIVE_MB`). */
  maxArchiveBytes: number;
  /**
   * Shared with the operator; signs the capability tokens of the /internal/ routes
   * (`SVC_INTERNAL_SECRET`, or a file named by `SVC_INTERNAL_SECRET_FILE`; required).
   */
  internalSecret: string;
  /**
   * The single-machine platform's report on its components (`SVC_PLATFORM_STATUS_FILE`,
   * written by its supervisor), shown by `/api/v1/health`; unset elsewhere.
   */
  platformStatusFile: string | undefined;
  /**
   * Code-host links: `SVC_PUBLIC_API_URL` (base of the webhook URLs; by default
   * the origin a request came to), `SVC_CODEHOST_WEBHOOK_PER_MINUTE` (deliveries
   * per agent, 120), `SVC_CODEHOST_ALLOW_LOOPBACK_HTTP` (a Git server on this
   * machine's loopback, plain HTTP too; off) and `SVC_CODEHOST_ALLOW_PRIVATE_HOSTS`
   * (a Git server on a private or link-local network; off: a tenant's host
   * must be on the public internet).
   */
  codehost: CodehostConfig;
  /**
   * Origins whose pages may call the vector plane from a browser
   * (`SVC_DASHBOARD_ORIGINS`, comma-separated): the web dashboard's. Default:
   * the control plane's own origin, where it serves the dashboard, and that of
   * `SVC_PUBLIC_API_URL` when set.
   */
  dashboardOrigins: string[] | null;
  /**
   * The vector plane's URL the dashboard's browser calls
   * (`SVC_DASHBOARD_VECTORS_URL`). Default: the home region's publicUrl, else
   * the vector plane's listening address.
   */
  dashboardVectorsUrl: string | undefined;
  logLevel: string;
}

/** Reads the configuration from `env`. */
export function loadConfig(env = process.env): ApiServerConfig {
  const registry = loadRegionRegistry(env);
  const home = registry.home;
  const host = envString('SVC_API_HOST', '127.0.0.1', env);
  return {
    host,
    metrics: {
      host: envString('SVC_METRICS_HOST', host, env),
      port: envInt('SVC_METRICS_PORT', 0, { min: -1, max: 65535 }, env),
    },
    controlPlanePort: envInt('SVC_API_PORT', 8000, { min: 0, max: 65535 }, env),
    edgePort: envInt('SVC_EDGE_PORT', 8002, { min: 0, max: 65535 }, env),
    vectorsPort: envInt('SVC_VECTORS_PORT', 8001, { min: 0, max: 65535 }, env),
    engineUrl: home.engineUrl,
    engineApiKey: requireSecret('SVC_ENGINE_API_KEY', env),
    coalesceSearches: envBool('SVC_VECTOR_COALESCE', true, env),
    mongoUri: envString('MONGODB_URI', 'mongodb://127.0.0.1:27017/svc', env),
    kubeconfig: home.kubernetes.kind === 'kubeconfig' ? home.kubernetes.path : undefined,
    agentDomain: envString('SVC_AGENT_DOMAIN', 'agents.localhost', env),
    regions: registry.names,
    registry,
    plansJson: envOptional('SVC_PLANS_JSON', env),
    maxArchiveBytes: envInt('SVC_MAX_ARCHIVE_MB', 200, { min: 1, max: 10_000 }, env) * 1024 * 1024,
    internalSecret: requireSecret('SVC_INTERNAL_SECRET', env),
    platformStatusFile: envOptional('SVC_PLATFORM_STATUS_FILE', env),
    codehost: {
      publicApiUrl: envOptional('SVC_PUBLIC_API_URL', env),
      webhookPerMinute: envInt('SVC_CODEHOST_WEBHOOK_PER_MINUTE', 120, { min: 1 }, env),
      allowLoopbackHttp: envBool('SVC_CODEHOST_ALLOW_LOOPBACK_HTTP', false, env),
      allowPrivateHosts: envBool('SVC_CODEHOST_ALLOW_PRIVATE_HOSTS', false, env),
    },
    dashboardOrigins: listOf(envOptional('SVC_DASHBOARD_ORIGINS', env)),
    dashboardVectorsUrl: envOptional('SVC_DASHBOARD_VECTORS_URL', env),
    logLevel: envString('SVC_LOG_LEVEL', 'info', env),
  };
}

/** The items of a comma-separated list, or null when unset. */
function listOf(value: string | undefined): string[] | null {
  if (value === undefined) return null;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

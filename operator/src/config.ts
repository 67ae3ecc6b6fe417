/**
 * The operator's configuration, read once from environment variables, with
 * defaults for the single-machine platform. Image names are what the Helm
 * chart publishes; the registry receives dockerfile builds.
 */
import { envInt, envOptional, envString } from '../../common/env.js';
import { loadNetworkPolicyConfig, type NetworkPolicyConfig } from './network-policy-config.js';
import { requireSecret } from '../../common/secrets.js';

/** Configuration of the operator process. */
export interface OperatorConfig {
  /**
   * The region this operator serves (`SVC_REGION`, default `local`): the one
   * whose Kubernetes API `kubeconfig` reaches. Each region runs its own operator,
   * which watches only its own region's API.
   */
  region: string;
  /**
   * The Prometheus listener (`GET /metrics`): `SVC_METRICS_HOST` (default
   * 127.0.0.1) and `SVC_METRICS_PORT` (default 0, a free port; -1 serves none).
   */
  metrics: { host: string; port: number };
  kubeconfig: string | undefined;
  /** `kubernetes` (a cluster) or `local` (child processes on this machine). */
  driver: 'kubernetes' | 'local';
  /** Where the local driver keeps builds, process logs and its records. */
  localDir: string;
  /**
   * The local driver's sandbox (SVC_SANDBOX): `auto` sandboxes agents where the machine can
   * and otherwise runs one account's agents unconfined; `required` refuses to start without it.
   */
  sandbox: 'auto' | 'required';
  /**
   * The Bun binary the local driver runs `bun` agents with (SVC_BUN_PATH); unset means the
   * one `hack/bun.mjs` installs into `.tools/bun` (see the local driver's `runnerPaths`).
   */
  bunPath: string | undefined;
  /** Namespace of the leader-election Lease. */
  leaseNamespace: string;
  leaseName: string;
  leaseDurationSeconds: number;
  /** Only these namespaces are reconciled; empty means all. */
  namespaces: string[];
  /** Builds running at once; more wait `queued` with a queue_position. */
  buildConcurrency: number;
  /** A build taking longer fails. */
  buildTimeoutSeconds: number;
  /**
   * How long a local build keeps trying to fetch its archive while the API server cannot be
   * reached (it restarts after a crash) before the build fails.
   */
  archiveFetchRetrySeconds: number;
  /** Where pods reach the API server (archives, artifacts, runs): an in-cluster URL. */
  internalApiUrl: string;
  /**
   * PEM certificates build pods trust besides the public ones when installing dependencies (a
   * TLS-intercepting proxy's CA); null for the public ones only (`SVC_BUILD_CA_CERTIFICATES`).
   */
  buildCaCertificates: string | null;
  /**
   * Shared with the API server; signs the capability tokens of the /internal/ routes
   * (`SVC_INTERNAL_SECRET`, or a file named by `SVC_INTERNAL_SECRET_FILE`; required: a
   * missing or guessable one stops the start).
   */
  internalSecret: string;
  /** What agents get as SVC_API_URL, SVC_VECTORS_URL and SVC_SPAWN_URL's base. */
  publicApiUrl: string;
  vectorsUrl: string;
  agentDomain: string;
  /** `http` or `https`, for agent URLs. */
  agentScheme: string;
  /** The edge's port in agent URLs, when it is not the scheme's default (one machine). */
  agentPort: number | undefined;
  images: {
    builder: string;
    runnerPython: string;
    runnerNode: string;
    runnerBun: string;
    imageBuilder: string;
    trigger: string;
  };
  /** Registry that receives images built from Dockerfiles. */
  imageRegistry: string;
  /** What agent pods may reach and be reached from (the Kubernetes driver's NetworkPolicies). */
  networkPolicy: NetworkPolicyConfig;
  logLevel: string;
  /**
   * Reconcile workers per kind (SVC_OPERATOR_AGENT_WORKERS, _DEPLOYMENT_WORKERS,
   * _WORKSPACE_WORKERS): each kind has its own queue, serialised per object.
   */
  workers: { Agent: number; AgentDeployment: number; Workspace: number };
}

/** Reads the configuration from `env`. */
export function loadOperatorConfig(env = process.env): OperatorConfig {
  const version = envString('SVC_IMAGE_TAG', '0.1.0', env);
  const repo = envString('SVC_IMAGE_REPOSITORY', 'ghcr.io/svc-platform', env);
  return {
    region: envString('SVC_REGION', 'local', env),
    metrics: {
      host: envString('SVC_METRICS_HOST', '127.0.0.1', env),
      port: envInt('SVC_METRICS_PORT', 0, { min: -1, max: 65535 }, env),
    },
    kubeconfig: envOptional('KUBECONFIG', env),
    driver: envString('SVC_DRIVER', 'kubernetes', env) === 'local' ? 'local' : 'kubernetes',
    localDir: envString('SVC_LOCAL_DIR', '.dev/local', env),
    sandbox: envString('SVC_SANDBOX', 'auto', env) === 'required' ? 'required' : 'auto',
    bunPath: envOptional('SVC_BUN_PATH', env),
    leaseNamespace: envString('SVC_OPERATOR_NAMESPACE', 'default', env),
    leaseName: envString('SVC_OPERATOR_LEASE', 'svc-operator', env),
    leaseDurationSeconds: envInt('SVC_OPERATOR_LEASE_SECONDS', 15, { min: 2, max: 300 }, env),
    namespaces: envString('SVC_OPERATOR_NAMESPACES', '', env)
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean),
    buildConcurrency: envInt('SVC_BUILD_CONCURRENCY', 2, { min: 1, max: 100 }, env),
    buildTimeoutSeconds: envInt('SVC_BUILD_TIMEOUT_SECONDS', 900, { min: 30 }, env),
    archiveFetchRetrySeconds: envInt(
      'SVC_ARCHIVE_FETCH_RETRY_SECONDS',
      60,
      { min: 0, max: 3600 },
      env,
    ),
    internalApiUrl: envString(
      'SVC_INTERNAL_API_URL',
      'http://svc-apiserver.svc-system.svc:8000',
      env,
    ),
    internalSecret: requireSecret('SVC_INTERNAL_SECRET', env),
    buildCaCertificates: envOptional('SVC_BUILD_CA_CERTIFICATES', env)?.trim() || null,
    publicApiUrl: envString('SVC_API_URL', 'http://127.0.0.1:8000', env),
    vectorsUrl: envString('SVC_VECTORS_URL', 'http://127.0.0.1:8001', env),
    agentDomain: envString('SVC_AGENT_DOMAIN', 'agents.localhost', env),
    agentScheme: envString('SVC_AGENT_SCHEME', 'http', env),
    agentPort: envOptional('SVC_AGENT_PORT', env)
      ? envInt('SVC_AGENT_PORT', 80, { min: 1, max: 65535 }, env)
      : undefined,
    images: {
      builder: envString('SVC_BUILDER_IMAGE', `${repo}/builder:${version}`, env),
      runnerPython: envString('SVC_RUNNER_PYTHON_IMAGE', `${repo}/runner-python:${version}`, env),
      runnerNode: envString('SVC_RUNNER_NODE_IMAGE', `${repo}/runner-node:${version}`, env),
      runnerBun: envString('SVC_RUNNER_BUN_IMAGE', `${repo}/runner-bun:${version}`, env),
      imageBuilder: envString(
        'SVC_IMAGE_BUILDER_IMAGE',
        'gcr.io/kaniko-project/executor:v1.23.2',
        env,
      ),
      trigger: envString('SVC_TRIGGER_IMAGE', 'curlimages/curl:8.10.1', env),
    },
    imageRegistry: envString('SVC_IMAGE_REGISTRY', 'registry.svc-system.svc:5000', env),
    networkPolicy: loadNetworkPolicyConfig(env),
    logLevel: envString('SVC_LOG_LEVEL', 'info', env),
    workers: {
      Agent: envInt('SVC_OPERATOR_AGENT_WORKERS', 32, { min: 1, max: 256 }, env),
      AgentDeployment: envInt('SVC_OPERATOR_DEPLOYMENT_WORKERS', 4, { min: 1, max: 64 }, env),
      Workspace: envInt('SVC_OPERATOR_WORKSPACE_WORKERS', 2, { min: 1, max: 64 }, env),
    },
  };
}

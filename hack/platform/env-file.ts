/** Writes `.dev/env`, which scripts and tests outside the code read. */
import { readFile, writeFile } from 'node:fs/promises';
import { readEnvValue, renderEnv } from '../../common/env-file.js';

/** The variables of `.dev/env` (see ../shared/design.md, "Interfaces"). */
export interface PlatformEnv {
  SVC_API_URL: string;
  SVC_VECTORS_URL: string;
  SVC_EDGE_URL: string;
  SVC_ENGINE_URL: string;
  SVC_AGENT_DOMAIN: string;
  /** A key of the ready bootstrap account. */
  SVC_API_KEY: string;
  KUBECONFIG: string;
  MONGODB_URI: string;
  /**
   * With `SVC_LOCAL_REGIONS`: the region registry as JSON (name, kubeconfig and
   * engine URL of each region, the first being home), as the API server reads it.
   */
  SVC_REGIONS_JSON?: string;
  /** The Prometheus listeners (`GET /metrics`) of the API server, the operator and the engine. */
  SVC_APISERVER_METRICS_URL?: string;
  SVC_OPERATOR_METRICS_URL?: string;
  SVC_ENGINE_METRICS_URL?: string;
}

/** Writes the env file with mode 0600 (it carries an API key). */
export async function writeEnvFile(path: string, vars: PlatformEnv): Promise<void> {
  const set = Object.entries(vars).filter((e): e is [string, string] => e[1] !== undefined);
  await writeFile(path, renderEnv(Object.fromEntries(set)), { mode: 0o600 });
}

/** One value of an existing env file, if the file and the value exist. */
export async function readEnvFileValue(path: string, key: string): Promise<string | undefined> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return readEnvValue(text, key);
}

/**
 * Reads the region registry from the environment, once, for config.ts. Three
 * forms, one at a time:
 *
 * - `SVC_REGIONS_FILE`: a file holding the JSON list of regions; the Helm
 *   chart renders `.Values.regions` into a ConfigMap and points this at it.
 * - `SVC_REGIONS_JSON`: the same list inline.
 * - `SVC_REGIONS`: comma-separated names (default `local`): one machine's
 *   single region, this process's `KUBECONFIG` and `SVC_ENGINE_URL`.
 *
 * The entry shape is in registry.ts ({@link parseRegionList}).
 */
import { readFileSync } from 'node:fs';
import { envOptional } from '../../../common/env.js';
import { parseRegionList, regionsFromNames, type RegionRegistry } from './registry.js';

/** The registry the environment describes; throws, naming the variable, when it is not usable. */
export function loadRegionRegistry(env: NodeJS.ProcessEnv = process.env): RegionRegistry {
  const defaults = {
    kubeconfig: envOptional('KUBECONFIG', env),
    engineUrl: envOptional('SVC_ENGINE_URL', env) ?? 'http://127.0.0.1:6333',
  };
  const file = envOptional('SVC_REGIONS_FILE', env);
  const json = envOptional('SVC_REGIONS_JSON', env);
  const names = envOptional('SVC_REGIONS', env);
  const set = [file && 'SVC_REGIONS_FILE', json && 'SVC_REGIONS_JSON', names && 'SVC_REGIONS'];
  const given = set.filter(Boolean);
  if (given.length > 1) throw new Error(`${given.join(' and ')} are both set; set one`);
  if (file) return parseRegionList(readRegionFile(file), defaults, 'SVC_REGIONS_FILE');
  if (json) return parseRegionList(json, defaults, 'SVC_REGIONS_JSON');
  return regionsFromNames(names ?? 'local', defaults);
}

function readRegionFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`SVC_REGIONS_FILE ${path} cannot be read: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

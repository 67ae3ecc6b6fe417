/**
 * The region registry: every region this installation offers, listed once.
 * A region is a Kubernetes API (a kubeconfig, or the cluster the process runs
 * in) with its own operator, the vector engine that serves it, and the public
 * URL `GET /api/v1/regions` names for it. The first region is the default home
 * region. Parsing is pure (the text of the list in, a registry or an error
 * naming what to fix out); reading it from the environment is in
 * `load-regions.ts`.
 */

/** Where a region's Kubernetes API is reached. */
export type RegionKubernetes =
  | { kind: 'kubeconfig'; path: string }
  | { kind: 'in-cluster' }
  /** The process's own choice: `KUBECONFIG`, else in-cluster, else `~/.kube/config`. */
  | { kind: 'default' };

/** One region. */
export interface Region {
  /** Lowercase letters, digits and inner hyphens, at most 63 (it is a label value). */
  name: string;
  kubernetes: RegionKubernetes;
  /** Base URL of the vector engine (or Qdrant) holding this region's points. */
  engineUrl: string;
  /**
   * The region's public vector-plane URL, as `GET /api/v1/regions` returns it;
   * null when the gateway that answers the request serves the region itself.
   */
  publicUrl: string | null;
}

/** Region names: they become the value of the `svc.dev/region` label. */
export const REGION_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The regions of an installation; never empty. */
export class RegionRegistry {
  readonly regions: readonly Region[];

  constructor(regions: readonly Region[]) {
    if (regions.length === 0) throw new Error('a region registry needs at least one region');
    this.regions = regions;
  }

  /** The default home region: the first one listed. */
  get home(): Region {
    return this.regions[0]!;
  }

  /** The names, in the order listed. */
  get names(): string[] {
    return this.regions.map((r) => r.name);
  }

  /** The region called `name`, or undefined. */
  get(name: string): Region | undefined {
    return this.regions.find((r) => r.name === name);
  }

  /** The names of `requested` that are not offered here. */
  unknown(requested: readonly string[]): string[] {
    return requested.filter((name) => !this.get(name));
  }
}

/** What a region falls back to when its entry leaves a connection unsaid (the first region only). */
export interface RegionDefaults {
  /** `KUBECONFIG`, when set. */
  kubeconfig: string | undefined;
  /** `SVC_ENGINE_URL`. */
  engineUrl: string;
}

const ENTRY_KEYS = new Set(['name', 'kubeconfig', 'inCluster', 'engineUrl', 'publicUrl']);

/**
 * A registry from the JSON list of `SVC_REGIONS_JSON` / `SVC_REGIONS_FILE`
 * (the Helm chart renders `.Values.regions` into it):
 * `[{name, kubeconfig?, inCluster?, engineUrl?, publicUrl?}, ...]`. The first
 * entry may leave its Kubernetes API and engine unsaid (the process's
 * `KUBECONFIG` and `SVC_ENGINE_URL`); every other entry names both, since a
 * second region is a second API and engine. `source` names the variable in errors.
 */
export function parseRegionList(text: string, defaults: RegionDefaults, source: string) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    throw new Error(`${source} must be a non-empty JSON array of regions`);
  }
  const regions = parsed.map((entry, i) => parseEntry(entry, i, defaults, `${source}[${i}]`));
  return new RegionRegistry(checkUnique(regions, source));
}

/**
 * A registry from the comma-separated names of `SVC_REGIONS` (default
 * `local`). The first region is this process's Kubernetes API and engine.
 * Further names share them: a name list offers region names, not separate
 * clusters; give a real second region its own API and engine with
 * {@link parseRegionList}.
 */
export function regionsFromNames(list: string, defaults: RegionDefaults, source = 'SVC_REGIONS') {
  const names = list
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.length === 0) throw new Error(`${source} names no region`);
  const regions = names.map((name, i) => {
    checkName(name, `${source}[${i}]`);
    return defaultRegion(name, defaults);
  });
  return new RegionRegistry(checkUnique(regions, source));
}

function defaultRegion(name: string, defaults: RegionDefaults): Region {
  return {
    name,
    kubernetes: defaults.kubeconfig
      ? { kind: 'kubeconfig', path: defaults.kubeconfig }
      : { kind: 'default' },
    engineUrl: defaults.engineUrl,
    publicUrl: null,
  };
}

function parseEntry(entry: unknown, index: number, defaults: RegionDefaults, where: string) {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new Error(`${where} must be an object {name, kubeconfig | inCluster, engineUrl}`);
  }
  const e = entry as Record<string, unknown>;
  const extra = Object.keys(e).filter((k) => !ENTRY_KEYS.has(k));
  if (extra.length > 0) {
    throw new Error(`${where} has unknown key(s) ${extra.join(', ')}; known: ${[...ENTRY_KEYS]}`);
  }
  if (typeof e.name !== 'string') throw new Error(`${where}.name must be a string`);
  checkName(e.name, `${where}.name`);
  const fallback = index === 0 ? defaultRegion(e.name, defaults) : null;

  if (e.kubeconfig !== undefined && e.inCluster !== undefined) {
    throw new Error(`${where} sets both kubeconfig and inCluster; set one`);
  }
  let kubernetes: RegionKubernetes;
  if (e.kubeconfig !== undefined) {
    if (typeof e.kubeconfig !== 'string' || e.kubeconfig === '') {
      throw new Error(`${where}.kubeconfig must be a file path`);
    }
    kubernetes = { kind: 'kubeconfig', path: e.kubeconfig };
  } else if (e.inCluster !== undefined) {
    if (e.inCluster !== true) throw new Error(`${where}.inCluster must be true when set`);
    kubernetes = { kind: 'in-cluster' };
  } else if (fallback) {
    kubernetes = fallback.kubernetes;
  } else {
    throw new Error(
      `${where} (${e.name}) needs kubeconfig or inCluster: each region after the first is its own Kubernetes API`,
    );
  }

  let engineUrl: string;
  if (e.engineUrl !== undefined) engineUrl = checkUrl(e.engineUrl, `${where}.engineUrl`);
  else if (fallback) engineUrl = fallback.engineUrl;
  else {
    throw new Error(
      `${where} (${e.name}) needs engineUrl: each region after the first has its own engine`,
    );
  }
  const publicUrl =
    e.publicUrl === undefined || e.publicUrl === null
      ? null
      : checkUrl(e.publicUrl, `${where}.publicUrl`);
  return { name: e.name, kubernetes, engineUrl, publicUrl };
}

function checkName(name: string, where: string): void {
  if (!REGION_NAME.test(name)) {
    throw new Error(
      `${where} "${name}" is not a region name: 1-63 lowercase letters, digits and inner hyphens`,
    );
  }
}

function checkUrl(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Error(`${where} must be a URL string`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${where} "${value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${where} "${value}" must be an http or https URL`);
  }
  return value.replace(/\/+$/, '');
}

function checkUnique(regions: Region[], source: string): Region[] {
  const seen = new Set<string>();
  for (const region of regions) {
    if (seen.has(region.name)) throw new Error(`${source} lists region ${region.name} twice`);
    seen.add(region.name);
  }
  return regions;
}

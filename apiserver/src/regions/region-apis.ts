/**
 * The Kubernetes API of each region, one client configuration per distinct
 * API. Regions of a name list (`SVC_REGIONS`) share the process's API, so
 * they are one API here and every read and write goes to it once, as with a
 * single region; a region of `SVC_REGIONS_JSON` with its own kubeconfig is an
 * API of its own.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { regionKubeConfig } from './region-kubeconfig.js';
import type { RegionKubernetes, RegionRegistry } from './registry.js';

/** One Kubernetes API and the regions it serves (in registry order). */
export interface RegionApi {
  regions: string[];
  kc: KubeConfig;
}

/** Where one region's objects are: its API, and the region they are labelled with. */
export interface RegionTarget {
  region: string;
  api: RegionApi;
}

function apiKey(kubernetes: RegionKubernetes): string {
  return kubernetes.kind === 'kubeconfig' ? `kubeconfig:${kubernetes.path}` : kubernetes.kind;
}

/** The regions' APIs; the first is the home region's. */
export class RegionApis {
  private constructor(
    /** The distinct APIs, the home region's first. */
    readonly apis: readonly RegionApi[],
  ) {}

  /**
   * The APIs of the registry; regions whose Kubernetes API is the home
   * region's use `homeKc` (the process's own client configuration).
   */
  static fromRegistry(registry: RegionRegistry, homeKc: KubeConfig): RegionApis {
    const byKey = new Map<string, RegionApi>();
    const homeKey = apiKey(registry.home.kubernetes);
    for (const region of registry.regions) {
      const key = apiKey(region.kubernetes);
      const api = byKey.get(key);
      if (api) api.regions.push(region.name);
      else {
        const kc = key === homeKey ? homeKc : regionKubeConfig(region);
        byKey.set(key, { regions: [region.name], kc });
      }
    }
    return new RegionApis([...byKey.values()]);
  }

  /** Every region of `names` on the one API of `kc` (a name list; the integration tests). */
  static shared(names: readonly string[], kc: KubeConfig): RegionApis {
    return new RegionApis([{ regions: [...names], kc }]);
  }

  /** The home region. */
  get home(): string {
    return this.apis[0]!.regions[0]!;
  }

  /** The home region's API. */
  get homeApi(): RegionApi {
    return this.apis[0]!;
  }

  /** True when every region is on one API (reads and writes need no fan-out). */
  get single(): boolean {
    return this.apis.length === 1;
  }

  /** The API of `region`; the home API for a name this registry does not list. */
  apiOf(region: string): RegionApi {
    return this.apis.find((a) => a.regions.includes(region)) ?? this.homeApi;
  }

  /**
   * Where objects placed in `regions` are written: each distinct API once,
   * labelled with the first of `regions` it serves. Empty `regions` is home.
   */
  targets(regions: readonly string[]): RegionTarget[] {
    const wanted = regions.length > 0 ? regions : [this.home];
    const out: RegionTarget[] = [];
    for (const region of wanted) {
      const api = this.apiOf(region);
      if (!out.some((t) => t.api === api)) out.push({ region, api });
    }
    return out;
  }

  /** The region an object read from `api` is in: its region label when that API serves it. */
  regionOf(api: RegionApi, label: string | undefined): string {
    return label && api.regions.includes(label) ? label : api.regions[0]!;
  }
}

/**
 * The regions of the single-machine platform (`SVC_LOCAL_REGIONS`): which
 * names it runs, and the region registry the API server is given for them.
 * The first region is the control plane's own kube-apiserver and the platform's
 * engine; each further one is another kube-apiserver on the same etcd
 * (../control-plane/region.ts) with its own engine and operator (platform.ts).
 */
import { REGION_NAME } from '../../apiserver/src/regions/registry.js';

/** The default single region's name. */
export const HOME_REGION = 'local';

/**
 * The region names `SVC_LOCAL_REGIONS` asks for: unset or empty is none (one
 * region, configured as before); a count N is `local`, `region-2` ... `region-N`;
 * otherwise a comma-separated list of names, the first being home.
 */
export function localRegionNames(value: string | undefined): string[] | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) {
    const count = Number(text);
    if (count < 1 || count > 8) throw new Error(`SVC_LOCAL_REGIONS=${text}: run 1 to 8 regions`);
    return [HOME_REGION, ...Array.from({ length: count - 1 }, (_, i) => `region-${i + 2}`)];
  }
  const names = text
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!REGION_NAME.test(name)) {
      throw new Error(
        `SVC_LOCAL_REGIONS: "${name}" is not a region name (lowercase letters, digits, inner hyphens)`,
      );
    }
  }
  if (new Set(names).size !== names.length) throw new Error('SVC_LOCAL_REGIONS repeats a name');
  return names;
}

/** One running region as the registry lists it. */
export interface LocalRegion {
  name: string;
  kubeconfigPath: string;
  engineUrl: string;
}

/** The `SVC_REGIONS_JSON` of `regions` (first is home), in the registry's entry shape. */
export function regionsJson(regions: readonly LocalRegion[]): string {
  return JSON.stringify(
    regions.map((r) => ({ name: r.name, kubeconfig: r.kubeconfigPath, engineUrl: r.engineUrl })),
  );
}

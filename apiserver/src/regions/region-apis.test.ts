import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { RegionApis } from './region-apis.js';
import { parseRegionList, regionsFromNames } from './registry.js';

function kubeconfigFile(server: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'region-apis-')), 'kubeconfig');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: c, cluster: {server: "${server}"}}]`,
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      'current-context: c',
    ].join('\n'),
  );
  return file;
}

const homeKc = new KubeConfig();
homeKc.loadFromOptions({
  clusters: [{ name: 'home', server: 'https://127.0.0.1:6443' }],
  users: [{ name: 'u', token: 't' }],
  contexts: [{ name: 'home', cluster: 'home', user: 'u' }],
  currentContext: 'home',
});

describe('RegionApis', () => {
  it("is one API for a name list: every region is on the process's own", () => {
    const apis = RegionApis.fromRegistry(
      regionsFromNames('local,eu-west', { kubeconfig: '/k/home', engineUrl: 'http://e' }),
      homeKc,
    );
    expect(apis.single).toBe(true);
    expect(apis.homeApi.regions).toEqual(['local', 'eu-west']);
    expect(apis.homeApi.kc).toBe(homeKc);
    // Two regions on one API are written once, labelled with the first.
    expect(apis.targets(['eu-west', 'local']).map((t) => t.region)).toEqual(['eu-west']);
  });

  it('gives a region with its own kubeconfig an API of its own', () => {
    const home = kubeconfigFile('https://127.0.0.1:6443');
    const far = kubeconfigFile('https://127.0.0.1:7443');
    const apis = RegionApis.fromRegistry(
      parseRegionList(
        JSON.stringify([
          { name: 'local' },
          { name: 'eu-west', kubeconfig: far, engineUrl: 'http://127.0.0.1:7333' },
        ]),
        { kubeconfig: home, engineUrl: 'http://127.0.0.1:6333' },
        'SVC_REGIONS_JSON',
      ),
      homeKc,
    );
    expect(apis.single).toBe(false);
    expect(apis.home).toBe('local');
    expect(apis.apiOf('eu-west').kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:7443');
    expect(apis.targets(['eu-west']).map((t) => t.region)).toEqual(['eu-west']);
    expect(apis.targets([]).map((t) => t.region)).toEqual(['local']);
    expect(apis.targets(['local', 'eu-west']).map((t) => t.region)).toEqual(['local', 'eu-west']);
  });

  it("reads an object's region from its label only when that API serves it", () => {
    const apis = RegionApis.shared(['local', 'eu-west'], homeKc);
    expect(apis.regionOf(apis.homeApi, 'eu-west')).toBe('eu-west');
    expect(apis.regionOf(apis.homeApi, 'mars')).toBe('local');
    expect(apis.regionOf(apis.homeApi, undefined)).toBe('local');
  });
});

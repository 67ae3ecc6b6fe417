import { describe, expect, it } from '@jest/globals';
import { parseRegionList } from '../../apiserver/src/regions/registry.js';
import { localRegionNames, regionsJson } from './regions.js';

describe('localRegionNames', () => {
  it('is nothing when unset or blank: one region configured as before', () => {
    expect(localRegionNames(undefined)).toBeUndefined();
    expect(localRegionNames('  ')).toBeUndefined();
  });

  it('turns a count into local and numbered regions', () => {
    expect(localRegionNames('1')).toEqual(['local']);
    expect(localRegionNames('3')).toEqual(['local', 'region-2', 'region-3']);
  });

  it('takes a name list as given, the first being home', () => {
    expect(localRegionNames('local, eu-west')).toEqual(['local', 'eu-west']);
  });

  it('refuses a bad name, a repeat and an absurd count', () => {
    expect(() => localRegionNames('local,EU')).toThrow('"EU" is not a region name');
    expect(() => localRegionNames('a,a')).toThrow('repeats');
    expect(() => localRegionNames('0')).toThrow('1 to 8');
    expect(() => localRegionNames('20')).toThrow('1 to 8');
  });
});

describe('regionsJson', () => {
  it('is a list the API server registry accepts, naming each API and engine', () => {
    const text = regionsJson([
      { name: 'local', kubeconfigPath: '/d/kubeconfig', engineUrl: 'http://127.0.0.1:6333' },
      { name: 'eu-west', kubeconfigPath: '/d/eu/kubeconfig', engineUrl: 'http://127.0.0.1:7000' },
    ]);
    const registry = parseRegionList(
      text,
      { kubeconfig: undefined, engineUrl: 'x' },
      'SVC_REGIONS_JSON',
    );
    expect(registry.get('eu-west')).toEqual({
      name: 'eu-west',
      kubernetes: { kind: 'kubeconfig', path: '/d/eu/kubeconfig' },
      engineUrl: 'http://127.0.0.1:7000',
      publicUrl: null,
    });
    expect(registry.home.name).toBe('local');
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { loadRegionRegistry } from './load-regions.js';
import { parseRegionList, regionsFromNames } from './registry.js';

const defaults = { kubeconfig: '/k/home.yaml', engineUrl: 'http://127.0.0.1:6333' };
const parse = (value: unknown) =>
  parseRegionList(JSON.stringify(value), defaults, 'SVC_REGIONS_JSON');

describe('regionsFromNames', () => {
  it('makes the single default region from the process connections', () => {
    const registry = regionsFromNames('local', defaults);
    expect(registry.names).toEqual(['local']);
    expect(registry.home).toEqual({
      name: 'local',
      kubernetes: { kind: 'kubeconfig', path: '/k/home.yaml' },
      engineUrl: 'http://127.0.0.1:6333',
      publicUrl: null,
    });
  });

  it('falls back to the default kubeconfig lookup without KUBECONFIG', () => {
    const registry = regionsFromNames('local', { ...defaults, kubeconfig: undefined });
    expect(registry.home.kubernetes).toEqual({ kind: 'default' });
  });

  it('keeps the listed order, the first being home, and trims blanks', () => {
    expect(regionsFromNames(' eu-west , local,', defaults).names).toEqual(['eu-west', 'local']);
  });

  it('refuses an empty list, a bad name and a repeated name', () => {
    expect(() => regionsFromNames(' , ', defaults)).toThrow('SVC_REGIONS names no region');
    expect(() => regionsFromNames('local,EU_West', defaults)).toThrow(
      'SVC_REGIONS[1] "EU_West" is not a region name',
    );
    expect(() => regionsFromNames('local,local', defaults)).toThrow(
      'SVC_REGIONS lists region local twice',
    );
  });
});

describe('parseRegionList', () => {
  it('lets the first region inherit the process kubeconfig and engine', () => {
    const registry = parse([
      { name: 'local' },
      {
        name: 'eu-west',
        kubeconfig: '/k/eu.yaml',
        engineUrl: 'http://127.0.0.1:7333/',
        publicUrl: 'https://eu.vectors.example.com/',
      },
    ]);
    expect(registry.home.name).toBe('local');
    expect(registry.home.kubernetes).toEqual({ kind: 'kubeconfig', path: '/k/home.yaml' });
    expect(registry.get('eu-west')).toEqual({
      name: 'eu-west',
      kubernetes: { kind: 'kubeconfig', path: '/k/eu.yaml' },
      engineUrl: 'http://127.0.0.1:7333',
      publicUrl: 'https://eu.vectors.example.com',
    });
    expect(registry.unknown(['eu-west', 'mars', 'local'])).toEqual(['mars']);
  });

  it('reads inCluster as the API of the cluster the process runs in', () => {
    const registry = parse([{ name: 'a', inCluster: true, engineUrl: 'http://qdrant:6333' }]);
    expect(registry.home).toMatchObject({
      kubernetes: { kind: 'in-cluster' },
      engineUrl: 'http://qdrant:6333',
    });
  });

  it('requires a Kubernetes API and an engine of every region after the first', () => {
    expect(() => parse([{ name: 'a' }, { name: 'b', engineUrl: 'http://e:1' }])).toThrow(
      'SVC_REGIONS_JSON[1] (b) needs kubeconfig or inCluster',
    );
    expect(() => parse([{ name: 'a' }, { name: 'b', kubeconfig: '/k/b' }])).toThrow(
      'SVC_REGIONS_JSON[1] (b) needs engineUrl',
    );
  });

  it.each([
    ['not JSON', '[', /SVC_REGIONS_JSON is not valid JSON/],
    ['an empty list', '[]', /must be a non-empty JSON array/],
    ['an object', '{"name":"a"}', /must be a non-empty JSON array/],
    ['an entry that is not an object', '["a"]', /SVC_REGIONS_JSON\[0\] must be an object/],
    ['a missing name', '[{}]', /SVC_REGIONS_JSON\[0\]\.name must be a string/],
    ['an uppercase name', '[{"name":"Local"}]', /"Local" is not a region name/],
    ['a name of 64 characters', `[{"name":"${'a'.repeat(64)}"}]`, /is not a region name/],
    ['an unknown key', '[{"name":"a","zone":"x"}]', /unknown key\(s\) zone/],
    [
      'both kubeconfig and inCluster',
      '[{"name":"a","kubeconfig":"/k","inCluster":true}]',
      /sets both kubeconfig and inCluster/,
    ],
    ['inCluster false', '[{"name":"a","inCluster":false}]', /inCluster must be true/],
    ['an empty kubeconfig', '[{"name":"a","kubeconfig":""}]', /kubeconfig must be a file path/],
    ['a non-URL engine', '[{"name":"a","engineUrl":"qdrant"}]', /engineUrl "qdrant" is not a URL/],
    [
      'a non-http public URL',
      '[{"name":"a","publicUrl":"ftp://x"}]',
      /publicUrl "ftp:\/\/x" must be an http or https URL/,
    ],
    [
      'a repeated name',
      '[{"name":"a"},{"name":"a","inCluster":true,"engineUrl":"http://e"}]',
      /lists region a twice/,
    ],
  ])('refuses %s', (_, text, message) => {
    expect(() => parseRegionList(text, defaults, 'SVC_REGIONS_JSON')).toThrow(message);
  });
});

describe('loadRegionRegistry', () => {
  it('is one region called local when nothing is configured', () => {
    const registry = loadRegionRegistry({ SVC_ENGINE_URL: 'http://127.0.0.1:7000' });
    expect(registry.regions).toEqual([
      {
        name: 'local',
        kubernetes: { kind: 'default' },
        engineUrl: 'http://127.0.0.1:7000',
        publicUrl: null,
      },
    ]);
  });

  it('reads the list from SVC_REGIONS_FILE (how the Helm chart passes it)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'regions-'));
    const file = join(dir, 'regions.json');
    writeFileSync(file, JSON.stringify([{ name: 'home' }]));
    expect(loadRegionRegistry({ SVC_REGIONS_FILE: file, KUBECONFIG: '/k' }).home).toMatchObject({
      name: 'home',
      kubernetes: { kind: 'kubeconfig', path: '/k' },
    });
    expect(() => loadRegionRegistry({ SVC_REGIONS_FILE: join(dir, 'missing.json') })).toThrow(
      /SVC_REGIONS_FILE .*missing\.json cannot be read/,
    );
  });

  it('reads SVC_REGIONS_JSON and refuses two forms at once', () => {
    expect(loadRegionRegistry({ SVC_REGIONS_JSON: '[{"name":"x"}]' }).names).toEqual(['x']);
    expect(() =>
      loadRegionRegistry({ SVC_REGIONS_JSON: '[{"name":"x"}]', SVC_REGIONS: 'local' }),
    ).toThrow('SVC_REGIONS_JSON and SVC_REGIONS are both set; set one');
  });
});

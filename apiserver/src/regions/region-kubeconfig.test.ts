import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { regionKubeConfig } from './region-kubeconfig.js';

describe('regionKubeConfig', () => {
  it("loads a region's own kubeconfig file", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'region-kc-')), 'kubeconfig');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: eu, cluster: {server: "https://127.0.0.1:7443"}}]',
        'users: [{name: eu, user: {token: t}}]',
        'contexts: [{name: eu, context: {cluster: eu, user: eu}}]',
        'current-context: eu',
      ].join('\n'),
    );
    const kc = regionKubeConfig({ kubernetes: { kind: 'kubeconfig', path: file } });
    expect(kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:7443');
  });

  it('fails loudly for a kubeconfig file that does not exist', () => {
    expect(() =>
      regionKubeConfig({ kubernetes: { kind: 'kubeconfig', path: '/nonexistent/kubeconfig' } }),
    ).toThrow();
  });
});

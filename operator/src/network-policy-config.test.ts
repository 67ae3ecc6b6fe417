import { describe, expect, it } from '@jest/globals';
import { canonicalCidr, loadNetworkPolicyConfig, parseSelector } from './network-policy-config.js';

describe('loadNetworkPolicyConfig', () => {
  it('defaults to a policy around the platform namespace svc-system', () => {
    expect(loadNetworkPolicyConfig({})).toEqual({
      enabled: true,
      platformNamespace: 'svc-system',
      edgeSelector: { 'app.kubernetes.io/name': 'svc-apiserver' },
      apiSelector: { 'app.kubernetes.io/name': 'svc-apiserver' },
      apiPorts: [8000, 8001],
      apiCidrs: [],
      registrySelector: { 'app.kubernetes.io/name': 'svc-registry' },
      registryPort: 5000,
      clusterCidrs: [],
    });
  });

  it('reads every setting from its variable', () => {
    const cfg = loadNetworkPolicyConfig({
      SVC_NETWORK_POLICY: 'false',
      SVC_PLATFORM_NAMESPACE: 'platform',
      SVC_NETPOL_EDGE_SELECTOR: 'app=edge, tier=front',
      SVC_NETPOL_API_SELECTOR: 'app=api',
      SVC_NETPOL_API_PORTS: '443, 8443',
      SVC_NETPOL_API_CIDRS: '10.20.30.40/32',
      SVC_NETPOL_REGISTRY_SELECTOR: 'none',
      SVC_NETPOL_REGISTRY_PORT: '5001',
      SVC_NETPOL_CLUSTER_CIDRS: '10.244.0.0/16,fd00:10:96::/108',
    });
    expect(cfg).toEqual({
      enabled: false,
      platformNamespace: 'platform',
      edgeSelector: { app: 'edge', tier: 'front' },
      apiSelector: { app: 'api' },
      apiPorts: [443, 8443],
      apiCidrs: ['10.20.30.40/32'],
      registrySelector: null,
      registryPort: 5001,
      clusterCidrs: ['10.244.0.0/16', 'fd00:10:96::/108'],
    });
  });

  it('refuses a port out of range, naming the variable', () => {
    expect(() => loadNetworkPolicyConfig({ SVC_NETPOL_API_PORTS: '8000,70000' })).toThrow(
      /SVC_NETPOL_API_PORTS/,
    );
  });

  it('refuses a cluster range that covers every address', () => {
    expect(() => loadNetworkPolicyConfig({ SVC_NETPOL_CLUSTER_CIDRS: '0.0.0.0/0' })).toThrow(
      /covers everything/,
    );
  });
});

describe('parseSelector', () => {
  it('reads an empty selector as every pod', () => {
    expect(parseSelector('X', '')).toEqual({});
  });

  it('refuses anything but equalities', () => {
    expect(() => parseSelector('X', 'app!=edge')).toThrow(/X must be key=value/);
  });
});

describe('canonicalCidr', () => {
  it.each(['10.96.0.0/12', '0.0.0.0/0', '192.168.1.7/32', 'fd00::/8', '2001:db8::/32', '::/0'])(
    'accepts %s',
    (cidr) => {
      expect(canonicalCidr('X', cidr)).toBe(cidr);
    },
  );

  it.each([
    ['10.96.0.1/12', /host bits/],
    ['fd00::1/8', /host bits/],
    ['10.0.0.0', /not a CIDR/],
    ['10.0.0.0/33', /not a CIDR/],
    ['cluster/8', /not a CIDR/],
    ['::ffff:10.0.0.0/104', /not a CIDR/],
  ])('refuses %s', (cidr, why) => {
    expect(() => canonicalCidr('X', cidr)).toThrow(why);
  });
});

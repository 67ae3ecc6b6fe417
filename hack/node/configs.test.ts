import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import {
  containerdConfig,
  cniConfig,
  corefile,
  kubeletConfig,
  kubeProxyConfig,
} from './configs.js';
import { isNodeRule } from './host.js';
import { BRIDGE, NODE_IP, POD_CIDR, nodePaths } from './layout.js';

const paths = nodePaths('/state/node');
const ports = {
  kubelet: 10250,
  kubeletHealthz: 10248,
  kubeProxyHealthz: 10256,
  kubeProxyMetrics: 10249,
  dnsHealth: 8080,
  dnsReady: 8181,
  networkPolicyMetrics: 9080,
};

describe('the real node configuration', () => {
  it('gives containerd the built runc, its runc root, the CNI directories and clamped OOM scores', () => {
    const toml = containerdConfig(paths, '/tools/runc');
    expect(toml).toContain('BinaryName = "/tools/runc"');
    expect(toml).toContain(`Root = "${paths.runcRoot}"`);
    expect(toml).toContain(`address = "${paths.containerdSocket}"`);
    expect(toml).toContain(`conf_dir = "${paths.cniConf}"`);
    expect(toml).toContain('restrict_oom_score_adj = true');
    expect(toml).toContain('netns_mounts_under_state_dir = true');
    expect(toml).toContain('sandbox = "registry.k8s.io/pause:3.10"');
  });

  it('plugs pods into the bridge with the node IP as gateway, masquerading out', () => {
    const conf = JSON.parse(cniConfig(paths)) as {
      plugins: Array<{
        type: string;
        bridge?: string;
        ipMasq?: boolean;
        ipam?: { ranges: unknown };
      }>;
    };
    expect(conf.plugins.map((p) => p.type)).toEqual(['bridge', 'portmap']);
    expect(conf.plugins[0]).toMatchObject({ bridge: BRIDGE, ipMasq: true, isGateway: true });
    expect(conf.plugins[0]!.ipam!.ranges).toEqual([[{ subnet: POD_CIDR, gateway: NODE_IP }]]);
  });

  it("serves the kubelet's API on the node IP to the CA's clients only, on cgroup v1", () => {
    const config = parse(kubeletConfig(paths, ports, '/pki/ca.crt')) as Record<string, unknown>;
    expect(config).toMatchObject({
      address: NODE_IP,
      port: 10250,
      readOnlyPort: 0,
      authentication: { anonymous: { enabled: false }, x509: { clientCAFile: '/pki/ca.crt' } },
      authorization: { mode: 'Webhook' },
      failCgroupV1: false,
      clusterDNS: [NODE_IP],
      containerRuntimeEndpoint: `unix://${paths.containerdSocket}`,
    });
  });

  it('runs kube-proxy in iptables mode for the pod CIDR, and CoreDNS on the node IP', () => {
    const proxy = parse(kubeProxyConfig(paths, ports)) as Record<string, unknown>;
    expect(proxy).toMatchObject({ mode: 'iptables', clusterCIDR: POD_CIDR });
    const dns = corefile(paths, ports);
    expect(dns).toContain(`bind ${NODE_IP}`);
    expect(dns).toContain(`kubeconfig ${paths.kubeconfig}`);
    expect(dns).toContain('ready 127.0.0.1:8181');
  });
});

describe('isNodeRule', () => {
  it.each([
    [':KUBE-SERVICES - [0:0]', true],
    ['-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES', true],
    [
      '-A POSTROUTING -s 10.244.0.2/32 -m comment --comment "name: svc-node id: 1" -j CNI-abc',
      true,
    ],
    [':CNI-HOSTPORT-DNAT - [0:0]', true],
    [
      '-A FORWARD -d 10.96.0.0/16 -m comment --comment "svc-node KUBE-NODE-UNTRANSLATED: a Service IP kube-proxy did not translate" -j REJECT --reject-with icmp-port-unreachable',
      true,
    ],
    ['-A POSTROUTING -o eth0 -j MASQUERADE', false],
    [':POSTROUTING ACCEPT [0:0]', false],
    ['-A INPUT -m comment --comment "MY-KUBE-LIKE rule" -j ACCEPT', false],
  ])('%s -> %s', (line, expected) => {
    expect(isNodeRule(line)).toBe(expected);
  });
});

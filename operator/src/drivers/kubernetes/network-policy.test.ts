import { describe, expect, it } from '@jest/globals';
import { loadNetworkPolicyConfig } from '../../network-policy-config.js';
import {
  AGENT_POLICY_NAME,
  agentNetworkPolicy,
  buildNetworkPolicy,
  internetPeers,
} from './network-policy.js';

const defaults = loadNetworkPolicyConfig({});
const platform = {
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'svc-system' } },
  podSelector: { matchLabels: { 'app.kubernetes.io/name': 'svc-apiserver' } },
};

describe('agentNetworkPolicy', () => {
  const policy = agentNetworkPolicy('svc-live-acct', defaults);

  it('selects every agent pod of the namespace, for both directions', () => {
    expect(policy.metadata).toMatchObject({ name: AGENT_POLICY_NAME, namespace: 'svc-live-acct' });
    expect(policy.spec?.podSelector).toEqual({
      matchExpressions: [{ key: 'svc.dev/agent-id', operator: 'Exists' }],
    });
    expect(policy.spec?.policyTypes).toEqual(['Ingress', 'Egress']);
  });

  it("lets only the platform's edge in, on the agent port", () => {
    expect(policy.spec?.ingress).toEqual([
      { _from: [platform], ports: [{ protocol: 'TCP', port: 8080 }] },
    ]);
  });

  it('lets agents resolve names, reach the internet and the API front doors, and nothing else', () => {
    expect(policy.spec?.egress).toEqual([
      {
        ports: [
          { protocol: 'UDP', port: 53 },
          { protocol: 'TCP', port: 53 },
        ],
      },
      { to: internetPeers([]) },
      {
        to: [platform],
        ports: [
          { protocol: 'TCP', port: 8000 },
          { protocol: 'TCP', port: 8001 },
        ],
      },
    ]);
  });

  it('adds the front doors configured as addresses', () => {
    const cfg = { ...defaults, apiCidrs: ['10.20.30.40/32'] };
    expect(agentNetworkPolicy('ns', cfg).spec?.egress?.at(-1)).toEqual({
      to: [{ ipBlock: { cidr: '10.20.30.40/32' } }],
    });
  });

  it('follows a platform namespace and selectors of its own', () => {
    const cfg = {
      ...defaults,
      platformNamespace: 'platform',
      edgeSelector: {},
      apiSelector: { app: 'api' },
    };
    const spec = agentNetworkPolicy('ns', cfg).spec;
    const inPlatform = { matchLabels: { 'kubernetes.io/metadata.name': 'platform' } };
    expect(spec?.ingress?.[0]?._from).toEqual([
      { namespaceSelector: inPlatform, podSelector: { matchLabels: {} } },
    ]);
    expect(spec?.egress?.[2]?.to).toEqual([
      { namespaceSelector: inPlatform, podSelector: { matchLabels: { app: 'api' } } },
    ]);
  });
});

describe('internetPeers', () => {
  it('is every address but the private, shared, loopback and link-local ranges', () => {
    expect(internetPeers([])).toEqual([
      {
        ipBlock: {
          cidr: '0.0.0.0/0',
          except: [
            '0.0.0.0/8',
            '10.0.0.0/8',
            '100.64.0.0/10',
            '127.0.0.0/8',
            '169.254.0.0/16',
            '172.16.0.0/12',
            '192.168.0.0/16',
          ],
        },
      },
      { ipBlock: { cidr: '::/0', except: ['fc00::/7', 'fe80::/10', '::1/128'] } },
    ]);
  });

  it("cuts the cluster's own ranges out of their address family, once", () => {
    const [v4, v6] = internetPeers(['10.0.0.0/8', '203.0.113.0/24', '2001:db8:42::/48']);
    expect(v4?.ipBlock?.except?.filter((c) => c === '10.0.0.0/8')).toHaveLength(1);
    expect(v4?.ipBlock?.except).toContain('203.0.113.0/24');
    expect(v4?.ipBlock?.except).not.toContain('2001:db8:42::/48');
    expect(v6?.ipBlock?.except).toContain('2001:db8:42::/48');
  });
});

describe('buildNetworkPolicy', () => {
  it('lets build pods push to the in-cluster registry', () => {
    expect(buildNetworkPolicy('ns', defaults)?.spec).toEqual({
      podSelector: {
        matchLabels: { 'svc.dev/component': 'build' },
        matchExpressions: [{ key: 'svc.dev/agent-id', operator: 'Exists' }],
      },
      policyTypes: ['Egress'],
      egress: [
        {
          to: [
            {
              namespaceSelector: platform.namespaceSelector,
              podSelector: { matchLabels: { 'app.kubernetes.io/name': 'svc-registry' } },
            },
          ],
          ports: [{ protocol: 'TCP', port: 5000 }],
        },
      ],
    });
  });

  it('is not needed when the registry is outside the cluster', () => {
    expect(buildNetworkPolicy('ns', { ...defaults, registrySelector: null })).toBeNull();
  });
});

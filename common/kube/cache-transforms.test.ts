/** What the informer caches keep of each object. */
import { describe, expect, it } from '@jest/globals';
import { LAST_APPLIED_ANNOTATION, stripForCache, workloadSkeleton } from './cache-transforms.js';

/** A custom resource shaped like an Agent, with the metadata given. */
function agentResource(
  namespace: string,
  _spec: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {},
) {
  return {
    apiVersion: 'svc.dev/v1alpha1',
    kind: 'Agent',
    metadata: {
      name: 'a-1',
      namespace,
      labels: { 'svc.dev/agent-name': 'hello' },
      ...metadata,
    } as {
      name: string;
      namespace: string;
      labels: Record<string, string>;
      annotations?: Record<string, string>;
      generation?: number;
      resourceVersion?: string;
    },
    spec: { name: 'hello', runtime: 'python3.11', memoryMb: 256 },
    status: undefined as unknown,
  };
}

const managedFields = [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': {} } }];

describe('stripForCache', () => {
  it('drops managedFields and the last-applied copy, keeping spec, status and the rest of metadata', () => {
    const agent = agentResource(
      'ns',
      {},
      {
        generation: 3,
        resourceVersion: '42',
        annotations: { [LAST_APPLIED_ANNOTATION]: '{"big":"copy"}', 'svc.dev/keep': 'yes' },
      },
    );
    Object.assign(agent.metadata, { managedFields });
    agent.status = { observedGeneration: 2 };
    const spec = structuredClone(agent.spec);

    const kept = stripForCache(agent);

    expect(kept.metadata).not.toHaveProperty('managedFields');
    expect(kept.metadata.annotations).toEqual({ 'svc.dev/keep': 'yes' });
    expect(kept.metadata.generation).toBe(3);
    expect(kept.metadata.resourceVersion).toBe('42');
    expect(kept.spec).toEqual(spec);
    expect(kept.status).toEqual({ observedGeneration: 2 });
  });

  it('leaves an object without metadata or annotations as it is', () => {
    expect(stripForCache({})).toEqual({});
    const agent = agentResource('ns');
    expect(stripForCache(agent).metadata.annotations).toBeUndefined();
  });
});

describe('workloadSkeleton', () => {
  it('keeps the kind and the identifying metadata (owner references), nothing else', () => {
    const ownerReferences = [
      { apiVersion: 'svc.dev/v1alpha1', kind: 'Agent', name: 'a', uid: 'u', controller: true },
    ];
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'agent-a',
        namespace: 'ns',
        uid: 'uid-1',
        resourceVersion: '7',
        generation: 2,
        labels: { 'app.kubernetes.io/managed-by': 'svc-operator' },
        annotations: { big: 'x'.repeat(1000) },
        ownerReferences,
        managedFields,
      },
      spec: { replicas: 1, template: { spec: { containers: [{ name: 'c' }] } } },
      status: { readyReplicas: 1 },
    };

    expect(workloadSkeleton(deployment)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'agent-a',
        namespace: 'ns',
        uid: 'uid-1',
        resourceVersion: '7',
        generation: 2,
        labels: { 'app.kubernetes.io/managed-by': 'svc-operator' },
        ownerReferences,
      },
    });
  });
});

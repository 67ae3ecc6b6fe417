/**
 * The README's "Install on a cluster", run as written on the real node (node-cluster.ts): the
 * chart installed, every platform pod Ready as non-root, the CRDs explained by kubectl, and the
 * first key made with the README's commands. Records the session for the files after it (they
 * run in the order of their names: test/cluster/sequencer.mjs).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { CoreV1Api, KubeConfig, V1Pod } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION } from '../../crds/src/index.js';
import { clusterState } from './node-cluster.js';
import {
  adminKube,
  asAdmin,
  frontDoors,
  platformReady,
  readmeFirstKey,
  readmeInstall,
  restrictedRefusal,
  saveSession,
} from './platform.js';

let kubeconfig: string;
let kc: KubeConfig;
let core: CoreV1Api;

beforeAll(async () => {
  ({ kubeconfig } = await clusterState());
  ({ kc, core } = adminKube(kubeconfig));
});

/** The pods of the platform's release. */
async function platformPods(): Promise<V1Pod[]> {
  return (await core.listNamespacedPod({ namespace: 'svc-system' })).items;
}

/** Every property under `schema` without a description, by path. */
function undescribed(schema: Record<string, unknown>, path: string): string[] {
  const missing: string[] = [];
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, child] of Object.entries(props)) {
    const at = `${path}.${name}`;
    if (!child.description) missing.push(at);
    missing.push(...undescribed(child, at));
    const items = child.items as Record<string, unknown> | undefined;
    if (items) missing.push(...undescribed(items, `${at}[]`));
  }
  return missing;
}

describe('the README install on a real node', () => {
  it('installs the chart as written; every platform pod becomes Ready, as non-root', async () => {
    await asAdmin(kubeconfig, await readmeInstall());
    const pods = await platformReady(kc, core);
    for (const pod of pods) {
      expect([pod.metadata?.name, pod.spec?.securityContext?.runAsNonRoot]).toEqual([
        pod.metadata?.name,
        true,
      ]);
      for (const status of pod.status?.containerStatuses ?? []) {
        // What the container really runs as: the kubelet reports the uid it started it with.
        expect([pod.metadata?.name, status.user?.linux?.uid]).not.toEqual([pod.metadata?.name, 0]);
      }
    }
  });

  it('runs every platform pod within Pod Security "restricted" (the admission itself says so)', async () => {
    for (const pod of await platformPods()) {
      expect([pod.metadata?.name, await restrictedRefusal(core, pod)]).toEqual([
        pod.metadata?.name,
        '',
      ]);
    }
  });

  it('explains every field of the three CRDs (kubectl explain)', async () => {
    const out = await asAdmin(kubeconfig, 'kubectl explain agents.spec');
    expect(out).toMatch(/DESCRIPTION:\s+\S/);
    for (const kind of ['agents', 'agentdeployments', 'workspaces']) {
      expect(await asAdmin(kubeconfig, `kubectl explain ${kind}.status`)).toMatch(
        /DESCRIPTION:\s+\S/,
      );
    }
    // What kubectl explain reads: the served OpenAPI v3 of the group, every property described.
    const doc = JSON.parse(
      await asAdmin(kubeconfig, `kubectl get --raw /openapi/v3/apis/${API_GROUP}/${API_VERSION}`),
    ) as { components: { schemas: Record<string, Record<string, unknown>> } };
    const kinds = Object.entries(doc.components.schemas).filter(([name]) =>
      /\.(Agent|AgentDeployment|Workspace)$/.test(name),
    );
    expect(kinds.map(([name]) => name.split('.').pop()).sort()).toEqual([
      'Agent',
      'AgentDeployment',
      'Workspace',
    ]);
    for (const [name, schema] of kinds) {
      const own = { ...schema, properties: { ...(schema.properties as object) } };
      // metadata, apiVersion and kind are Kubernetes' own (described by it, by reference).
      delete (own.properties as Record<string, unknown>).metadata;
      expect(undescribed(own, name)).toEqual([]);
    }
  });

  it('makes the first key with the README commands, and the key lists agents', async () => {
    const doors = await frontDoors(core);
    const { account, key, listed } = await readmeFirstKey(kubeconfig, doors.apiUrl);
    expect(account).toMatch(/^[0-9a-f-]{36}$/);
    expect(key).toMatch(/^svc_live_/);
    expect(listed).toMatchObject({ items: [], total: 0 });
    await saveSession({ kubeconfig, ...doors, account, key });
  });
});

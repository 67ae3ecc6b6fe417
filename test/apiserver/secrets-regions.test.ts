/**
 * Agent secrets across two real regions (the harness's kube-apiserver and a
 * second one on the same etcd): the agent's Secret sits beside each region's
 * copy of the Agent, owned by that copy, holding the same values; each copy
 * carries its own Secret's revision; an agent placed in region-b only has no
 * Secret in the home region. A workspace's secrets are copied into each of its
 * regions (the operator there reads only its own API), each agent copy
 * carries its region's revision, and deleting the workspace removes them all.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { ANNOTATIONS, OBJECT_NAMES, workspaceSecretsName } from '../../crds/src/index.js';
import { generateSecret } from '../../common/secrets.js';
import { kubeConfig } from '../harness/env.js';
import { resourceChanges, waitFor } from '../harness/wait.js';
import { startTestRegion, type TestRegion } from '../harness/regions.js';
import { startTwoRegionServer } from './two-region-server.js';
import { call, createCaller, type Caller, type TestServer } from './control-plane-server.js';

jest.setTimeout(180_000);

let regionB: TestRegion;
let home: KubeConfig;
let server: TestServer;
let owner: Caller;

beforeAll(async () => {
  regionB = await startTestRegion('region-b');
  home = kubeConfig();
  ({ server } = await startTwoRegionServer(regionB, 'secrets-regions'));
  owner = await createCaller(server, { tier: 'enterprise' });
}, 150_000);

afterAll(async () => {
  await server?.close();
  await regionB?.stop();
});

async function secretIn(kc: KubeConfig, agentId: string) {
  return secretNamed(kc, OBJECT_NAMES.agentSecrets(agentId));
}

async function secretNamed(kc: KubeConfig, name: string) {
  try {
    return await kc.makeApiClient(CoreV1Api).readNamespacedSecret({
      namespace: owner.namespace,
      name,
    });
  } catch (err) {
    if ((err as { code?: number }).code === 404) return null;
    throw err;
  }
}

const decoded = (data: Record<string, string> | undefined, key: string) =>
  Buffer.from(data?.[key] ?? '', 'base64').toString('utf8');

async function agentInWorkspace(name: string, regions: string[]): Promise<string> {
  const ws = await call(server, 'POST', '/api/v1/workspaces', {
    key: owner.key,
    body: { name: `ws-${name}`, regions },
  });
  expect(ws.status).toBe(201);
  const created = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name, workspace_name: `ws-${name}`, tier: 'enterprise' },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

describe('agent secrets in two regions', () => {
  it("writes the same values beside each region's copy of the Agent, owned by that copy", async () => {
    const id = await agentInWorkspace('two-regions', ['local', 'region-b']);
    const value = generateSecret();
    const set = await call(server, 'POST', `/api/v1/agents/${id}/secrets`, {
      key: owner.key,
      body: { key: 'API_TOKEN', value, description: 'both' },
    });
    expect(set.status).toBe(201);
    for (const kc of [home, regionB.kc]) {
      const agent = await new CustomResourceClient(kc).get('Agent', owner.namespace, id);
      const secret = await secretIn(kc, id);
      expect(decoded(secret?.data, 'API_TOKEN')).toBe(value);
      expect(secret?.metadata?.ownerReferences?.[0]).toMatchObject({
        kind: 'Agent',
        uid: agent?.metadata.uid,
        controller: true,
      });
      expect(agent?.metadata.annotations?.[ANNOTATIONS.secretsRevision]).toBe(
        secret?.metadata?.resourceVersion,
      );
    }

    const next = generateSecret();
    const rotated = await call(server, 'POST', `/api/v1/agents/${id}/secrets/API_TOKEN/rotate`, {
      key: owner.key,
      body: { value: next },
    });
    expect(rotated.status).toBe(200);
    for (const kc of [home, regionB.kc]) {
      expect(decoded((await secretIn(kc, id))?.data, 'API_TOKEN')).toBe(next);
    }
    const list = await call<{ items: Array<{ key: string; id: string }> }>(
      server,
      'GET',
      `/api/v1/agents/${id}/secrets`,
      { key: owner.key },
    );
    expect(list.body.items).toEqual([expect.objectContaining({ key: 'API_TOKEN' })]);

    const deleted = await call(server, 'DELETE', `/api/v1/agents/${id}/secrets/API_TOKEN`, {
      key: owner.key,
    });
    expect(deleted.status).toBe(204);
    for (const kc of [home, regionB.kc]) {
      expect((await secretIn(kc, id))?.data ?? {}).not.toHaveProperty('API_TOKEN');
    }
  });

  it('keeps the Secret of an agent placed in region-b only out of the home region', async () => {
    const id = await agentInWorkspace('only-b', ['region-b']);
    const set = await call(server, 'POST', `/api/v1/agents/${id}/secrets`, {
      key: owner.key,
      body: { key: 'API_TOKEN', value: generateSecret() },
    });
    expect(set.status).toBe(201);
    expect(await secretIn(regionB.kc, id)).not.toBeNull();
    expect(await secretIn(home, id)).toBeNull();
  });

  it("copies a workspace's secrets into each of its regions and removes them with the workspace", async () => {
    const id = await agentInWorkspace('ws-shared', ['local', 'region-b']);
    const workspace = await call<{ id: string }>(server, 'GET', '/api/v1/workspaces/ws-ws-shared', {
      key: owner.key,
    });
    const name = workspaceSecretsName(workspace.body.id);
    const value = generateSecret();
    const set = await call(server, 'POST', '/api/v1/workspaces/ws-ws-shared/secrets', {
      key: owner.key,
      body: { key: 'SHARED_TOKEN', value },
    });
    expect(set.status).toBe(201);
    for (const kc of [home, regionB.kc]) {
      const secret = await secretNamed(kc, name);
      expect(decoded(secret?.data, 'SHARED_TOKEN')).toBe(value);
      const agent = await new CustomResourceClient(kc).get('Agent', owner.namespace, id);
      expect(agent?.metadata.annotations?.[ANNOTATIONS.secretsRevision]).toBe(
        secret?.metadata?.resourceVersion,
      );
    }
    // Owned by the Workspace at home only: region-b has no Workspace to own it.
    expect((await secretNamed(home, name))?.metadata?.ownerReferences?.[0]?.kind).toBe('Workspace');
    expect((await secretNamed(regionB.kc, name))?.metadata?.ownerReferences ?? []).toEqual([]);

    const removed = await call(
      server,
      'DELETE',
      '/api/v1/workspaces/ws-ws-shared/secrets/SHARED_TOKEN',
      {
        key: owner.key,
      },
    );
    expect(removed.status).toBe(204);
    expect((await secretNamed(regionB.kc, name))?.data ?? {}).not.toHaveProperty('SHARED_TOKEN');

    await call(server, 'POST', '/api/v1/workspaces/ws-ws-shared/secrets', {
      key: owner.key,
      body: { key: 'SHARED_TOKEN', value },
    });
    expect((await call(server, 'DELETE', `/api/v1/agents/${id}`, { key: owner.key })).status).toBe(
      202,
    );
    await waitForAgentGone(id);
    const gone = await call<{ secrets_deleted: number }>(
      server,
      'DELETE',
      '/api/v1/workspaces/ws-ws-shared',
      { key: owner.key },
    );
    expect(gone.status).toBe(200);
    expect(gone.body.secrets_deleted).toBe(1);
    for (const kc of [home, regionB.kc]) expect(await secretNamed(kc, name)).toBeNull();
  });
});

/** Waits until no region holds a copy of the agent (its finalizers done). */
async function waitForAgentGone(id: string): Promise<void> {
  let left: string[] = [];
  const regions = { local: home, 'region-b': regionB.kc };
  await waitFor(
    `agent ${id} to be gone from every region`,
    async () => {
      left = [];
      for (const [region, kc] of Object.entries(regions)) {
        if (await new CustomResourceClient(kc).get('Agent', owner.namespace, id)) left.push(region);
      }
      return left.length === 0;
    },
    {
      timeoutMs: 60_000,
      // A change of the Agents in either region.
      wakeOn: (changed) => {
        const stops = Object.values(regions).map((kc) =>
          resourceChanges(kc, 'Agent', owner.namespace)(changed),
        );
        return () => stops.forEach((stop) => stop());
      },
      lastSeen: () => ({ still_in: left }),
    },
  );
}

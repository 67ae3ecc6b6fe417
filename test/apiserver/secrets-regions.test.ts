/**
 * Agent secrets across two real regions (the harness's kube-apiserver and a
 * second one on the same etcd): the agent's Secret sits beside each region's
 * copy of the Agent, owned by that copy, holding the same values; each copy
 * carries its own Secret's revision; an agent placed in region-b only has no
 * Secret in the home region.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { ANNOTATIONS, OBJECT_NAMES } from '../../crds/src/index.js';
import { generateSecret } from '../../common/secrets.js';
import { kubeConfig } from '../harness/env.js';
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
  try {
    return await kc.makeApiClient(CoreV1Api).readNamespacedSecret({
      namespace: owner.namespace,
      name: OBJECT_NAMES.agentSecrets(agentId),
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
});

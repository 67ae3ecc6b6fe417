/**
 * A second region is a second kube-apiserver on the harness's etcd under its
 * own prefix: it serves the platform's CRDs, and what is written to one API is
 * not in the other.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { agentResource } from '../factories/custom-resources.js';
import { createNamespace, kubeConfig } from '../harness/env.js';
import { startTestRegion, type TestRegion } from '../harness/regions.js';

let region: TestRegion;

beforeAll(async () => {
  region = await startTestRegion('region-b');
}, 120_000);

afterAll(async () => {
  await region?.stop();
});

describe('a second region API', () => {
  it('is another API on the same etcd: its objects are its own', async () => {
    const home = kubeConfig();
    expect(region.kc.getCurrentCluster()?.server).not.toBe(home.getCurrentCluster()?.server);
    const namespace = await createNamespace(region.kc, 'region-b');
    const core = (kc: typeof home) => kc.makeApiClient(CoreV1Api);
    await expect(core(region.kc).readNamespace({ name: namespace })).resolves.toBeDefined();
    await expect(core(home).readNamespace({ name: namespace })).rejects.toMatchObject({
      code: 404,
    });
  });

  it('serves the CRDs: an Agent written to it is read back there and absent at home', async () => {
    const namespace = await createNamespace(region.kc, 'region-b');
    const agent = agentResource(namespace, { name: 'in-region-b' });
    await new CustomResourceClient(region.kc).create('Agent', agent);
    const there = await new CustomResourceClient(region.kc).get(
      'Agent',
      namespace,
      agent.metadata.name!,
    );
    expect(there?.spec.name).toBe(agent.spec.name);
    expect(
      await new CustomResourceClient(kubeConfig()).get('Agent', namespace, agent.metadata.name!),
    ).toBeNull();
  });
});

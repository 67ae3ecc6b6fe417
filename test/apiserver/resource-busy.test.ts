/** 503 RESOURCE_BUSY when an agent keeps changing under an update, against the real kube-apiserver. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentRepository } from '../../apiserver/src/agents/agent-repository.js';
import { ResourceBusy } from '../../apiserver/src/errors/catalogue.js';
import { agentResource } from '../factories/custom-resources.js';
import { createNamespace, kubeConfig } from '../harness/env.js';
import { CoreV1Api } from '@kubernetes/client-node';

const kc = kubeConfig();
const repository = new AgentRepository(kc);
const rival = new AgentRepository(kc);
let namespace: string;

beforeAll(async () => {
  namespace = await createNamespace(kc, 'busy');
});

afterAll(async () => {
  await kc.makeApiClient(CoreV1Api).deleteNamespace({ name: namespace });
});

describe('AgentRepository.update', () => {
  it('retries a conflicting write and succeeds once the object holds still', async () => {
    const agent = await repository.create(agentResource(namespace));
    const id = agent.metadata.name ?? '';
    let calls = 0;
    const updated = await repository.update(namespace, id, async (a) => {
      calls++;
      a.spec.memoryMb = 512;
      // The first attempt loses a race with another writer between its read and its write.
      if (calls === 1) await rivalWrite(id);
    });
    expect(calls).toBe(2);
    expect(updated?.spec.memoryMb).toBe(512);
    expect(updated?.spec.description).toMatch(/^changed /);
  });

  it('gives up with 503 RESOURCE_BUSY when every attempt conflicts', async () => {
    const agent = await repository.create(agentResource(namespace));
    const id = agent.metadata.name ?? '';
    let attempts = 0;
    await expect(
      repository.update(namespace, id, async () => {
        attempts++;
        await rivalWrite(id);
      }),
    ).rejects.toBeInstanceOf(ResourceBusy);
    expect(attempts).toBe(4);
  });
});

async function rivalWrite(id: string): Promise<void> {
  await rival.update(namespace, id, (a) => {
    a.spec.description = `changed ${Math.random()}`;
  });
}

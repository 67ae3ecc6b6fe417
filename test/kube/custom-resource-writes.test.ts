/** CustomResourceClient's writes against the harness's kube-apiserver and the platform's CRDs. */
import { describe, expect, it } from '@jest/globals';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { agentResource } from '../factories/custom-resources.js';
import { createNamespace, kubeConfig } from '../harness/env.js';

describe('CustomResourceClient writes', () => {
  it('store what the schema knows and prune what it does not, on create, replace and status', async () => {
    const kc = kubeConfig();
    const client = new CustomResourceClient(kc);
    const namespace = await createNamespace(kc, 'crwrites');
    const sent = agentResource(namespace, { name: 'writes', description: 'first' });
    Object.assign(sent.spec, { notInTheSchema: 'dropped' });
    const created = await client.create('Agent', sent);
    expect(created.spec.description).toBe('first');
    expect(created.spec).not.toHaveProperty('notInTheSchema');

    created.spec.description = 'second';
    Object.assign(created.spec, { alsoUnknown: 1 });
    const replaced = await client.write('Agent', created);
    expect(replaced.spec.description).toBe('second');
    expect(replaced.spec).not.toHaveProperty('alsoUnknown');

    const status = { ...replaced.status, status: 'running', unknownStatus: true } as NonNullable<
      typeof replaced.status
    >;
    const withStatus = await client.writeStatus('Agent', replaced, status);
    expect(withStatus.status?.status).toBe('running');
    expect(withStatus.status).not.toHaveProperty('unknownStatus');
    const read = await client.get('Agent', namespace, created.metadata.name ?? '');
    expect(read?.spec.description).toBe('second');
    expect(read?.status?.status).toBe('running');
  });
});

/** KubeJson against the harness's kube-apiserver: answers, the API's errors, an API not reached. */
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { isKubeConflict, isKubeNotFound, kubeStatus } from '../../common/kube/errors.js';
import { KubeApiError, KubeJson } from '../../common/kube/kube-json.js';
import { createNamespace, kubeConfig } from '../harness/env.js';

describe('KubeJson', () => {
  it('reads and writes JSON with the kubeconfig credentials, and carries the status of a refusal', async () => {
    const kc = kubeConfig();
    const api = new KubeJson(kc);
    const namespace = await createNamespace(kc, 'kubejson');
    const path = `/api/v1/namespaces/${namespace}/configmaps`;
    const created = await api.request<{ metadata: { name: string; resourceVersion: string } }>(
      'POST',
      path,
      { metadata: { name: 'one' }, data: { a: '1' } },
    );
    expect(created.metadata.name).toBe('one');
    const read = await api.request<{ data: Record<string, string> }>('GET', `${path}/one`);
    expect(read.data).toEqual({ a: '1' });

    const again = await api
      .request('POST', path, { metadata: { name: 'one' } })
      .catch((err: unknown) => err);
    expect(again).toBeInstanceOf(KubeApiError);
    expect(isKubeConflict(again)).toBe(true);
    const missing = await api.request('GET', `${path}/none`).catch((err: unknown) => err);
    expect(isKubeNotFound(missing)).toBe(true);
    await api.request('DELETE', `${path}/one`);
    expect(isKubeNotFound(await api.request('GET', `${path}/one`).catch((e: unknown) => e))).toBe(
      true,
    );
  });

  it('fails without a status when the API is not reached', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u', token: 'x' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    const err = await new KubeJson(kc)
      .request('GET', '/api/v1/namespaces')
      .catch((e: unknown) => e);
    expect(String((err as { code?: unknown }).code)).toBe('ECONNREFUSED');
    expect(kubeStatus(err)).toBeUndefined();
  });
});

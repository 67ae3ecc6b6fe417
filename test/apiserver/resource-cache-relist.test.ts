/**
 * The API server's watch-fed cache (apiserver/src/store/resource-cache.ts)
 * when its watch cannot resume: a kube-apiserver without a watch cache reads
 * watches from etcd, and once etcd has compacted past the resourceVersion the
 * cache last saw, resuming answers 410 Gone. The cache must list again and
 * come back holding exactly what the API holds (an update, a delete and a
 * create made while it was cut off), never what it held before.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CustomObjectsApi, Watch, type KubeConfig } from '@kubernetes/client-node';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { createLogger } from '../../common/logger.js';
import { API_GROUP, API_VERSION, PLURALS, type Agent } from '../../crds/src/index.js';
import { ResourceCache } from '../../apiserver/src/store/resource-cache.js';
import { agentResource } from '../factories/custom-resources.js';
import { createNamespace } from '../harness/env.js';
import { startTestRegion, type TestRegion } from '../harness/regions.js';
import { HARNESS_ENV } from '../harness/state.js';
import { untilValue } from './support/until-value.js';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.js';

let region: TestRegion;
let kc: KubeConfig;
let proxy: TcpProxy;
let cache: ResourceCache<'Agent'>;
let client: CustomResourceClient;
let namespace: string;

beforeAll(async () => {
  // Watches straight from etcd: a compaction makes an old resourceVersion 410 at once.
  region = await startTestRegion(`relist${Date.now() % 100_000}`, {
    kubeApiserverArgs: ['--watch-cache=false'],
  });
  kc = region.kc;
  namespace = await createNamespace(kc, 'relist');
  proxy = await startTcpProxy(kc);
  cache = new ResourceCache(proxy.kubeConfig(), 'Agent', createLogger('test', 'silent'));
  await cache.start();
  client = new CustomResourceClient(kc);
}, 120_000);

afterAll(async () => {
  await cache?.stop();
  await proxy?.close();
  await region?.stop();
});

/** The relist takes a backoff and a full list: a longer wait than the watch tests'. */
const until = <T>(what: string, check: () => T | undefined | false) =>
  untilValue(what, check, 30_000);

/** Compacts the harness's etcd up to its current revision (its JSON gateway). */
async function compactEtcd(): Promise<number> {
  const etcd = process.env[HARNESS_ENV.etcdUrl] ?? '';
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${etcd}${path}`, { method: 'POST', body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    return (await res.json()) as { header: { revision: string } };
  };
  const { header } = await post('/v3/kv/range', { key: Buffer.from('/').toString('base64') });
  const revision = Number(header.revision);
  await post('/v3/kv/compaction', { revision, physical: true });
  return revision;
}

/** What the API answers to a watch of Agents from `resourceVersion`: its first event's type and code. */
async function watchFrom(resourceVersion: string): Promise<{ type: string; code?: number }> {
  const watch = new Watch(kc);
  return new Promise((resolve, reject) => {
    let request: { abort(): void } | undefined;
    watch
      .watch(
        `/apis/${API_GROUP}/${API_VERSION}/namespaces/${namespace}/${PLURALS.Agent}`,
        { resourceVersion },
        (type, object: { code?: number }) => {
          resolve({ type, code: object.code });
          request?.abort();
        },
        (err) => (err ? reject(err as Error) : undefined),
      )
      .then((r) => (request = r), reject);
  });
}

describe('the resource cache after its resourceVersion was compacted away', () => {
  it('lists again on 410 Gone and holds what changed while it was cut off', async () => {
    const kept = await client.create('Agent', agentResource(namespace, { description: 'before' }));
    const dropped = await client.create('Agent', agentResource(namespace));
    await until(
      'both agents cached',
      () =>
        cache.get(namespace, kept.metadata!.name!) && cache.get(namespace, dropped.metadata!.name!),
    );
    const seenVersion = kept.metadata!.resourceVersion!;

    proxy.setMode('refuse');
    proxy.dropConnections();
    await client.write('Agent', { ...kept, spec: { ...kept.spec, description: 'after' } } as Agent);
    await client.delete('Agent', namespace, dropped.metadata!.name!);
    const added = await client.create('Agent', agentResource(namespace, { description: 'added' }));
    await compactEtcd();
    // The condition is real: the API refuses to resume from what the cache last saw.
    expect(await watchFrom(seenVersion)).toEqual({ type: 'ERROR', code: 410 });

    proxy.setMode('forward');
    await until(
      'the cache to list again',
      () =>
        cache.get(namespace, kept.metadata!.name!)?.spec.description === 'after' &&
        cache.get(namespace, added.metadata!.name!) &&
        !cache.get(namespace, dropped.metadata!.name!),
    );
    // And it keeps following the API after the new list.
    const later = await client.create('Agent', agentResource(namespace, { description: 'later' }));
    await until('a later agent cached', () => cache.get(namespace, later.metadata!.name!));
    const listed = (await kc.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace,
      plural: PLURALS.Agent,
    })) as { items: Agent[] };
    expect((cache.list(namespace) ?? []).map((a) => a.metadata.name).sort()).toEqual(
      listed.items.map((a) => a.metadata.name).sort(),
    );
  });
});

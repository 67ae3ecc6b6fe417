/**
 * The API server's watch-fed cache (apiserver/src/store/resource-cache.ts)
 * against the real kube-apiserver. The cache watches through a TCP proxy the
 * test can cut, while the repository writes straight to the API, so the
 * tests control when the cache is behind:
 * - reads are answered from the cache (they work with the repository's own
 *   way to the API cut off);
 * - a write of this process is read back at once even when the watch has not
 *   brought it yet (a partition freezes the watch without an error), by object
 *   and by namespace list (read-your-writes);
 * - while the watch is broken (an error, then a restart) reads go to the API;
 * - after the watch connection breaks and comes back, the cache holds what
 *   changed meanwhile (an update, a delete, a create);
 * - the cache answers by namespace: a same-named object of another namespace
 *   is never returned, whatever the cache's state.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { createLogger } from '../../common/logger.js';
import type { Agent } from '../../crds/src/index.js';
import { CustomResourceRepository } from '../../apiserver/src/store/custom-resources.js';
import { ResourceCache } from '../../apiserver/src/store/resource-cache.js';
import { agentResource } from '../factories/custom-resources.js';
import { createNamespace, kubeConfig } from '../harness/env.js';
import { untilValue } from './support/until-value.js';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.js';

let kc: KubeConfig;
let proxy: TcpProxy;
let cache: ResourceCache<'Agent'>;
let repo: CustomResourceRepository<'Agent', Agent>;
let client: CustomResourceClient;
let namespace: string;

beforeAll(async () => {
  kc = kubeConfig();
  namespace = await createNamespace(kc, 'cache');
  proxy = await startTcpProxy(kc);
  cache = new ResourceCache(proxy.kubeConfig(), 'Agent', createLogger('test', 'silent'));
  await cache.start();
  repo = new CustomResourceRepository<'Agent', Agent>(kc, 'Agent', 'agent', cache);
  client = new CustomResourceClient(kc);
}, 60_000);

afterAll(async () => {
  await cache?.stop();
  await proxy?.close();
});

/** Cuts the cache off its API: the open watch is reset and reconnects are refused. */
function cutWatch(): void {
  proxy.setMode('refuse');
  proxy.dropConnections();
}

function restoreWatch(): void {
  proxy.setMode('forward');
}

describe('the resource cache', () => {
  it("answers reads from the cache, with the repository's own way to the API cut off", async () => {
    const apiProxy = await startTcpProxy(kc);
    try {
      const cachedRepo = new CustomResourceRepository<'Agent', Agent>(
        apiProxy.kubeConfig(),
        'Agent',
        'agent',
        cache,
      );
      const agent = await client.create(
        'Agent',
        agentResource(namespace, { description: 'cached' }),
      );
      const name = agent.metadata!.name!;
      await untilValue('the cache to hold the agent', () => cache.get(namespace, name));
      apiProxy.setMode('refuse');
      apiProxy.dropConnections();
      expect((await cachedRepo.get(namespace, name))?.spec.description).toBe('cached');
      expect((await cachedRepo.list(namespace)).map((a) => a.metadata.name)).toContain(name);
    } finally {
      await apiProxy.close();
    }
  });

  it("reads this process's writes back at once, even before the watch brings them", async () => {
    const created = await repo.create(agentResource(namespace, { description: 'v1' }));
    const name = created.metadata.name!;
    await untilValue('the cache to hold the agent', () => cache.get(namespace, name));
    // A partition: the watch connection stays open but nothing comes through, and no error.
    proxy.setMode('hang');
    const updated = await repo.update(namespace, name, (a) => {
      a.spec.description = 'v2';
    });
    expect(updated?.spec.description).toBe('v2');
    // The cache still holds v1, and says it cannot answer for this object.
    expect(cache.informer.get(namespace, name)?.spec.description).toBe('v1');
    expect(cache.get(namespace, name)).toBeUndefined();
    expect((await repo.get(namespace, name))?.spec.description).toBe('v2');
    const listed = await repo.list(namespace);
    expect(listed.find((a) => a.metadata.name === name)?.spec.description).toBe('v2');

    const born = await repo.create(agentResource(namespace, { description: 'new while frozen' }));
    expect((await repo.get(namespace, born.metadata.name!))?.spec.description).toBe(
      'new while frozen',
    );
    expect((await repo.list(namespace)).map((a) => a.metadata.name)).toContain(born.metadata.name);

    await repo.delete(namespace, name);
    expect(await repo.get(namespace, name)).toBeNull();
    expect((await repo.list(namespace)).map((a) => a.metadata.name)).not.toContain(name);

    // The partition heals as a broken connection: the watch restarts and catches up.
    proxy.setMode('forward');
    proxy.dropConnections();
    await untilValue('the cache to catch up', () => cache.get(namespace, born.metadata.name!));
    await untilValue(
      'the delete to reach the cache',
      () => !cache.list(namespace)?.some((a) => a.metadata?.name === name) && true,
    );
  });

  it('holds what changed while its watch was broken once it reconnects', async () => {
    const kept = await client.create('Agent', agentResource(namespace, { description: 'before' }));
    const dropped = await client.create('Agent', agentResource(namespace));
    await untilValue(
      'both agents cached',
      () =>
        cache.get(namespace, kept.metadata!.name!) && cache.get(namespace, dropped.metadata!.name!),
    );
    cutWatch();
    await client.write('Agent', { ...kept, spec: { ...kept.spec, description: 'after' } } as Agent);
    await client.delete('Agent', namespace, dropped.metadata!.name!);
    const added = await client.create('Agent', agentResource(namespace, { description: 'added' }));
    // The watch is broken: the cache answers nothing, and reads go to the API.
    await untilValue(
      'the cache to stop answering once its watch broke',
      () => cache.get(namespace, kept.metadata!.name!) === undefined,
    );
    expect(cache.get(namespace, kept.metadata!.name!)).toBeUndefined();
    expect((await repo.get(namespace, kept.metadata!.name!))?.spec.description).toBe('after');
    expect(await repo.get(namespace, dropped.metadata!.name!)).toBeNull();
    restoreWatch();
    await untilValue(
      'the cache to catch up after reconnecting',
      () =>
        cache.get(namespace, kept.metadata!.name!)?.spec.description === 'after' &&
        cache.get(namespace, added.metadata!.name!) &&
        !cache.get(namespace, dropped.metadata!.name!),
    );
  });

  it("never answers with another namespace's object of the same name", async () => {
    const other = await createNamespace(kc, 'cache-other');
    const mine = agentResource(namespace, { description: 'mine' });
    const theirs = agentResource(other, { description: 'theirs' }, { name: mine.metadata.name });
    await client.create('Agent', theirs);
    await untilValue('the other namespace cached', () => cache.get(other, theirs.metadata.name!));
    // Not in this namespace: the cache does not hold it, and the API says so.
    expect(cache.get(namespace, mine.metadata.name!)).toBeUndefined();
    expect(await repo.get(namespace, mine.metadata.name!)).toBeNull();
    expect((await repo.list(namespace)).map((a) => a.metadata.name)).not.toContain(
      mine.metadata.name,
    );
    await repo.create(mine);
    await untilValue('mine cached', () => cache.get(namespace, mine.metadata.name!));
    expect((await repo.get(namespace, mine.metadata.name!))?.spec.description).toBe('mine');
    expect((await repo.get(other, theirs.metadata.name!))?.spec.description).toBe('theirs');
  });

  it('finds objects by a label as a label-selector list does, following creates, relabels and deletes', async () => {
    const label = 'svc.dev/agent-name';
    const byLabel = (value: string) =>
      cache
        .listByLabel(namespace, label, value)
        ?.map((a) => a.metadata.name)
        .sort();
    const bySelector = (value: string) =>
      cache
        .list(namespace, `${label}=${value}`)
        ?.map((a) => a.metadata.name)
        .sort();
    const first = agentResource(namespace, { name: 'indexed' });
    const second = agentResource(namespace, { name: 'indexed' });
    await client.create('Agent', first);
    await client.create('Agent', second);
    await untilValue('both cached', () => (byLabel('indexed')?.length === 2 ? true : undefined));
    expect(byLabel('indexed')).toEqual(bySelector('indexed'));
    // Elsewhere, or under another value: not found.
    const other = await createNamespace(kc, 'cache-label');
    await client.create('Agent', agentResource(other, { name: 'indexed' }));
    expect(byLabel('indexed')).toEqual([first.metadata.name, second.metadata.name].sort());
    expect(byLabel('unindexed')).toEqual([]);

    // Relabelled: found under its new value only.
    const relabelled = await client.get('Agent', namespace, first.metadata.name!);
    relabelled!.metadata.labels = { ...relabelled!.metadata.labels, [label]: 'renamed' };
    await client.write('Agent', relabelled!);
    await untilValue('relabel seen', () => (byLabel('renamed')?.length === 1 ? true : undefined));
    expect(byLabel('indexed')).toEqual([second.metadata.name]);
    expect(byLabel('renamed')).toEqual(bySelector('renamed'));

    // Deleted: gone from the index.
    await client.delete('Agent', namespace, second.metadata.name!);
    await untilValue('delete seen', () => (byLabel('indexed')?.length === 0 ? true : undefined));
    expect(bySelector('indexed')).toEqual([]);
  });
});

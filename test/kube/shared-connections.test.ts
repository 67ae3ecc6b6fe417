/**
 * Requests of a KubeConfig given shareConnections go over kept-alive connections: a
 * series of requests opens one TLS connection to the real kube-apiserver, not one each.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { shareConnections, type SharedConnections } from '../../common/kube/shared-connections.js';
import { kubeConfig } from '../harness/env.js';

const RESPONSES = 'http.client.response.finish';

/** Counts the HTTP requests made while `run` runs that opened a connection (reused none). */
async function connectionsOpenedBy(run: () => Promise<void>): Promise<number> {
  let opened = 0;
  const count = (message: unknown) => {
    if (!(message as { request: ClientRequest }).request.reusedSocket) opened += 1;
  };
  subscribe(RESPONSES, count);
  try {
    await run();
  } finally {
    unsubscribe(RESPONSES, count);
  }
  return opened;
}

/** A KubeConfig of its own (the harness's is shared by the file's other users). */
function freshKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(kubeConfig().exportConfig());
  return kc;
}

const tenRequests = (kc: KubeConfig) => async () => {
  const core = kc.makeApiClient(CoreV1Api);
  for (let i = 0; i < 10; i++) await core.readNamespace({ name: 'default' });
};

let shared: SharedConnections | undefined;
afterEach(() => shared?.close());

describe('shareConnections', () => {
  it('sends a series of requests over one kept-alive connection', async () => {
    const kc = freshKubeConfig();
    shared = shareConnections(kc);
    expect(await connectionsOpenedBy(tenRequests(kc))).toBe(1);
    expect(shared.agents).toBe(1);
  });

  it('without it, client-node opens a connection per request (what it fixes)', async () => {
    expect(await connectionsOpenedBy(tenRequests(freshKubeConfig()))).toBe(10);
  });
});

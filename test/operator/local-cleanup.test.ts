/**
 * What the local driver keeps on disk goes when nothing needs it, against the
 * real API server, kube-apiserver (whose controller manager collects an
 * agent's deployments) and Python processes: builds of versions superseded
 * beyond the three kept; every build, run record, service record and log of
 * a deleted agent (its processes stopped first); a build that passes the
 * limits its deployment records, with nothing of it left; and, when an
 * operator starts, whatever belongs to agents and deployments that no longer
 * exist.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { CustomObjectsApi } from '@kubernetes/client-node';
import {
  API_GROUP,
  API_VERSION,
  LABELS,
  PLURALS,
  type Agent as AgentResource,
} from '../../crds/src/index.js';
import { ArchiveStore } from '../../apiserver/src/deploy/archive-store.js';
import { controllerRef } from '../../crds/src/owner-reference.js';
import { makeArchive, PYTHON_SERVICE } from '../factories/archives.js';
import { agentDeploymentResource } from '../factories/custom-resources.js';
import { requestService } from '../../operator/src/drivers/local/service-request.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { deployFiles, type Deployment } from '../apiserver/deploy/deploy-helpers.js';
import { startLocalOperator, type LocalOperator } from './local-operator.js';
import { eventually } from './operator-harness.js';

const MiB = 1024 * 1024;
let server: TestServer;
let owner: Caller;
let operator: LocalOperator;

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server, { tier: 'starter' });
  operator = await startLocalOperator(server, (ns) => ns === owner.namespace, {
    overrides: { agentDomain: 'agents.localtest' },
  });
}, 120_000);

afterAll(async () => {
  await operator.stop();
  await server.close();
});

type AgentRecord = {
  id: string;
  name: string;
  status: string;
  deployed: boolean;
  url: string | null;
};

const state = (...path: string[]) => join(operator.dir, ...path);
const builds = () => (existsSync(state('builds')) ? readdirSync(state('builds')).sort() : []);
const getDeployment = (id: string) =>
  call<Deployment>(server, 'GET', `/api/v1/deployments/${id}`, { key: owner.key }).then(
    (r) => r.body,
  );
const custom = () => server.kc.makeApiClient(CustomObjectsApi);

async function createAgent(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await call<AgentRecord>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** Deploys `files` to `agent` and waits for the deployment to finish. */
async function deploy(agent: string, files: Record<string, string>): Promise<Deployment> {
  const accepted = await deployFiles(server, owner.key, agent, files);
  expect(accepted.status).toBe(202);
  return eventually(
    () => getDeployment(accepted.body.id),
    (d) => ['active', 'failed'].includes(d.state),
    `${agent} v${accepted.body.version} finished`,
    120_000,
  );
}

const JOB = { 'main.py': 'print("job ran", flush=True)\n' };

describe('local driver: build and run directories', () => {
  it('removes the builds of versions superseded beyond the three most recent', async () => {
    await createAgent('kept-three', { agent_type: 'job' });
    const ids: string[] = [];
    for (let version = 1; version <= 5; version++) {
      const d = await deploy('kept-three', { ...JOB, 'version.txt': String(version) });
      expect(d.state).toBe('active');
      ids.push(d.id);
    }
    await eventually(
      async () => builds(),
      (present) => !present.includes(ids[0] ?? '') && !present.includes(ids[1] ?? ''),
      'v1 and v2 released',
    );
    expect(builds()).toEqual(expect.arrayContaining(ids.slice(2)));
    // What remains still runs: the active version's build is there.
    expect(existsSync(state('builds', ids[4] ?? '', 'app', 'main.py'))).toBe(true);
  });

  it("stops a deleted agent's processes and removes its builds, run records and logs", async () => {
    const serviceId = await createAgent('doomed-service');
    const service = await deploy('doomed-service', { 'main.py': PYTHON_SERVICE });
    expect(service.state).toBe('active');
    const running = await eventually(
      () =>
        custom().getNamespacedCustomObject({
          group: API_GROUP,
          version: API_VERSION,
          namespace: owner.namespace,
          plural: PLURALS.Agent,
          name: serviceId,
        }) as Promise<AgentResource>,
      (a) => Boolean(a.status?.endpoint),
      'doomed-service serving',
    );
    const endpoint = running.status?.endpoint ?? '';
    expect((await requestService(endpoint, '/health', { timeoutMs: 5000 })).status).toBe(200);
    const socketDir = dirname(endpoint.slice('unix:'.length));

    await createAgent('doomed-job', { agent_type: 'job' });
    const job = await deploy('doomed-job', JOB);
    expect(job.state).toBe('active');
    // The agent is deployed (what a run needs) at the operator's next reconcile.
    await eventually(
      () => call<AgentRecord>(server, 'GET', '/api/v1/agents/doomed-job', { key: owner.key }),
      (r) => r.body.deployed,
      'doomed-job deployed',
    );
    const accepted = await call<{ deployment_id: string }>(
      server,
      'POST',
      '/api/v1/agents/doomed-job/run',
      { key: owner.key, body: { payload: {} } },
    );
    expect(accepted.status).toBe(202);
    const runId = accepted.body.deployment_id;
    await eventually(
      () => getDeployment(runId),
      (r) => r.state === 'completed',
      'the run completed',
      60_000,
    );

    const kept = [
      state('builds', service.id),
      state('services', `${serviceId}.json`),
      state('logs', `agent-${serviceId}.log`),
      state('builds', job.id),
      state('runs', `${runId}.json`),
      state('logs', `run-${runId}.log`),
      socketDir,
    ];
    for (const path of kept) expect([path, existsSync(path)]).toEqual([path, true]);

    for (const name of ['doomed-service', 'doomed-job']) {
      const res = await call(server, 'DELETE', `/api/v1/agents/${name}`, { key: owner.key });
      expect(res.status).toBe(202);
    }
    await eventually(
      async () => kept.filter((path) => existsSync(path)),
      (left) => left.length === 0,
      'the deleted agents state removed',
      60_000,
    );
    // Stopped before its directory went.
    await expect(requestService(endpoint, '/health', { timeoutMs: 5000 })).rejects.toThrow();
  });

  it('fails a build that unpacks past the limits its deployment records, and leaves none of it', async () => {
    const agentId = await createAgent('over-limits', { agent_type: 'job' });
    const agent = (await custom().getNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: owner.namespace,
      plural: PLURALS.Agent,
      name: agentId,
    })) as AgentResource;
    // Accepted by the API under larger limits than the deployment records: the builder holds
    // the archive to the recorded ones, defensively.
    const archive = await makeArchive({
      ...JOB,
      'data/a.bin': { content: Buffer.alloc(MiB) },
      'data/b.bin': { content: Buffer.alloc(MiB) },
    });
    const stored = await new ArchiveStore(server.db, 'archives').save(
      Readable.from([archive]),
      'code.tar.gz',
      {},
      10 * MiB,
    );
    const id = randomUUID();
    const resource = agentDeploymentResource(owner.namespace, agentId, {
      metadata: {
        name: id,
        labels: { [LABELS.agentId]: agentId, [LABELS.deploymentVersion]: '1' },
        ownerReferences: [controllerRef(agent)],
      },
      spec: {
        archiveId: stored.id,
        archiveLimits: { maxUnpackedBytes: 1.5 * MiB, maxEntries: 100, maxFileBytes: 2 * MiB },
      },
      config: { runtime: 'python3.11', agentType: 'job', entrypoint: 'main.py' },
    });
    await custom().createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: owner.namespace,
      plural: PLURALS.AgentDeployment,
      body: resource,
    });

    const failed = await eventually(
      () => getDeployment(id),
      (d) => d.state === 'failed',
      'the over-limit build failed',
      60_000,
    );
    expect(failed.error_message).toMatch(
      /^Build failed: The archive unpacks to more than 1536 KiB, the limit for all its files together/,
    );
    // A failed build is released at once: not even its record stays.
    await eventually(
      async () => existsSync(state('builds', id)),
      (present) => !present,
      'the failed build removed',
    );
  });

  it('removes, when an operator starts, what belongs to agents and deployments that no longer exist', async () => {
    const gone = { agent: randomUUID(), deployment: randomUUID(), run: randomUUID() };
    const orphans = [
      state('builds', gone.deployment, 'app', 'main.py'),
      state('builds', gone.deployment, 'build.json'),
      state('runs', `${gone.run}.json`),
      state('logs', `run-${gone.run}.log`),
      state('services', `${gone.agent}.json`),
      state('logs', `agent-${gone.agent}.log`),
    ];
    let live: string[] = [];
    // While no operator runs: what it kept for objects deleted meanwhile stays behind.
    await operator.restartManager(async () => {
      live = builds();
      for (const path of orphans) {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, '{}');
      }
    });
    expect(live.length).toBeGreaterThan(0);

    for (const path of orphans) expect([path, existsSync(path)]).toEqual([path, false]);
    expect(existsSync(state('builds', gone.deployment))).toBe(false);
    expect(builds()).toEqual(live);
  });
});

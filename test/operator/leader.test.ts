/**
 * Two operator processes, as two replicas would run: only the Lease holder
 * reconciles; when it stops, the other takes over and carries on.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { LABELS } from '../../crds/src/index.js';
import { readyLine, startReady } from '../../common/component-starter.js';
import { ProcessGroup, type ManagedProcess } from '../../common/processes.js';
import { repoRoot } from '../../hack/lib/paths.js';
import { PYTHON_SERVICE } from '../factories/archives.js';
import { createNamespace, harness } from '../harness/env.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { deployFiles } from '../apiserver/deploy/deploy-helpers.js';
import { clients, eventually } from './operator-harness.js';

let server: TestServer;
let owner: Caller;
let leaseNamespace: string;
const group = new ProcessGroup(mkdtempSync(join(tmpdir(), 'svc-operators-')));
const operators: Array<{ proc: ManagedProcess; identity: string }> = [];

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server);
  // The tenant namespace exists once the account has an agent.
  await call(server, 'POST', '/api/v1/agents', { key: owner.key, body: { name: 'leader-one' } });
  leaseNamespace = await createNamespace(server.kc, 'lease');
  for (let i = 0; i < 2; i++) {
    const { proc, announced: identity } = await startReady(group, {
      name: `operator-${i}`,
      command: process.execPath,
      // The image's entry point (images/operator/Dockerfile).
      args: [join(repoRoot, 'operator', 'main.mjs')],
      cwd: repoRoot,
      env: {
        ...process.env,
        KUBECONFIG: harness().kubeconfigPath,
        SVC_INTERNAL_SECRET: server.internalSecret,
        SVC_OPERATOR_NAMESPACE: leaseNamespace,
        SVC_OPERATOR_LEASE_SECONDS: '3',
        SVC_OPERATOR_NAMESPACES: owner.namespace,
        SVC_LOG_LEVEL: 'info',
      },
      readyWhen: { line: readyLine('operator', 'identity') },
      timeoutMs: 30_000,
    });
    operators.push({ proc, identity });
  }
});

afterAll(async () => {
  await group.stopAll();
  await server.close();
});

const holder = async () =>
  (
    await server.kc
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace: leaseNamespace, name: 'svc-operator' })
  ).spec?.holderIdentity ?? '';

const reconciled = (index: number) =>
  readFileSync(operators[index]?.proc.logFile ?? '', 'utf8').includes('"message":"reconciling"');

describe('leader election', () => {
  it('lets exactly one replica reconcile, and the other take over when it stops', async () => {
    const leaderIdentity = await eventually(
      holder,
      (h) => operators.some((o) => o.identity === h),
      'a leader',
    );
    const leader = operators.findIndex((o) => o.identity === leaderIdentity);
    const standby = 1 - leader;
    await eventually(
      async () => reconciled(leader),
      (r) => r,
      'leader reconciling',
    );
    expect(reconciled(standby)).toBe(false);

    const first = await deployFiles(server, owner.key, 'leader-one', { 'main.py': PYTHON_SERVICE });
    const k = clients(server.kc);
    const jobsOf = async (id: string) =>
      (
        await k.batch.listNamespacedJob({
          namespace: owner.namespace,
          labelSelector: `${LABELS.deploymentId}=${id}`,
        })
      ).items;
    await eventually(
      () => jobsOf(first.body.id),
      (jobs) => jobs.length === 1,
      'build job from the leader',
    );

    operators[leader]?.proc.child.kill('SIGTERM');
    await operators[leader]?.proc.exited;
    await eventually(holder, (h) => h === operators[standby]?.identity, 'takeover', 15_000);
    await eventually(
      async () => reconciled(standby),
      (r) => r,
      'standby reconciling',
    );

    await call(server, 'POST', '/api/v1/agents', { key: owner.key, body: { name: 'leader-two' } });
    const second = await deployFiles(server, owner.key, 'leader-two', {
      'main.py': PYTHON_SERVICE,
    });
    await eventually(
      () => jobsOf(second.body.id),
      (jobs) => jobs.length === 1,
      'build job from the new leader',
    );
  });
});

/**
 * Scale to zero and wake on the Kubernetes driver: the agent 02-services.test.ts deployed with
 * a one-minute idle timeout has its Deployment scaled to zero and its pod gone; a request
 * through the edge wakes it (Deployment 0 → 1, a new pod) and gets the service's answer. The
 * stages of the wake are printed (bench/cluster-path.ts measures them over many wakes).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { OBJECT_NAMES } from '../../crds/src/index.js';
import {
  accountNamespace,
  adminKube,
  agentUrl,
  asAdmin,
  controlPlane,
  session,
  viaEdge,
  type Session,
} from './platform.js';
import { asleep, measureWake } from './wake-stages.js';

let s: Session;
let kc: KubeConfig;

beforeAll(async () => {
  s = await session();
  ({ kc } = adminKube(s.kubeconfig));
});

describe('scale to zero and wake, in real pods', () => {
  it('scales an idle service to zero, and a request through the edge wakes it', async () => {
    const api = controlPlane(s);
    const agent = (await api<{ id: string }>('GET', '/api/v1/agents/sleepy')).body;
    const namespace = accountNamespace(s);
    const workload = OBJECT_NAMES.workload(agent.id);
    // The idle minute counts from its deploy, in the file before this one.
    await asleep(kc, namespace, agent.id, 150_000);
    const url = await agentUrl(s, 'sleepy');
    const wake = await measureWake(kc, namespace, agent.id, workload, () => viaEdge(s, url));
    expect(wake.status).toBe(200);
    expect(wake.text).toContain('"hello": "from python"');
    expect(wake.pod).toMatch(new RegExp(`^${workload}-`));
    const stages = Object.entries(wake)
      .filter(([, v]) => typeof v === 'number')
      .map(([k, v]) => `${k} ${Math.round(v as number)} ms`);
    process.stdout.write(`wake from zero on the node: ${stages.join(', ')}\n`);
    // The operator recorded both on the agent (kubectl describe lists them).
    const described = await asAdmin(
      s.kubeconfig,
      `kubectl -n ${namespace} describe agent ${agent.id}`,
    );
    expect(described).toMatch(/Normal\s+ScaledToZero\b/);
    expect(described).toMatch(/Normal\s+Woken\b/);
    // Stages in the order they happen.
    expect(wake.scaled).toBeLessThanOrEqual(wake.podCreated);
    expect(wake.podCreated).toBeLessThanOrEqual(wake.started);
    expect(wake.started).toBeLessThanOrEqual(wake.ready);
    expect(wake.ready).toBeLessThanOrEqual(wake.answered);
  });
});

/**
 * An account's agents driven through the HTTP API against the real operator,
 * with the test playing the kubelet: create, deploy, finish a build, make a
 * service ready, wait for states, and read the key a deployment's pods get.
 */
import { expect } from '@jest/globals';
import { OBJECT_NAMES, LABELS } from '../../crds/src/index.js';
import { PYTHON_SERVICE } from '../factories/archives.js';
import { call, type Caller, type TestServer } from '../apiserver/control-plane-server.js';
import { deployFiles, type Deployment } from '../apiserver/deploy/deploy-helpers.js';
import { resourceChanges } from '../harness/wait.js';
import { clients, eventually, finishPods, readyPods } from './operator-harness.js';

/** The Agent record as these tests read it. */
export type AgentRecord = { id: string; name: string; status: string; agent_type: string };

/** The job a job agent runs: a plain script. */
export const PYTHON_JOB = 'print("done")\n';

/** Drives one account's agents. */
export class AgentFlow {
  private counter = 0;

  constructor(
    private readonly server: TestServer,
    readonly owner: Caller,
    private readonly prefix: string,
  ) {}

  /** Creates an agent (a service unless `agent_type` says otherwise). */
  async newAgent(extra: Record<string, unknown> = {}): Promise<AgentRecord> {
    const res = await call<AgentRecord>(this.server, 'POST', '/api/v1/agents', {
      key: this.owner.key,
      body: { name: `${this.prefix}-${++this.counter}`, ...extra },
    });
    expect(res.status).toBe(201);
    return res.body;
  }

  /** Deploys the agent's code: a Python service, or a Python job for a job agent. */
  async deploy(agent: AgentRecord): Promise<Deployment> {
    const code = agent.agent_type === 'job' ? PYTHON_JOB : PYTHON_SERVICE;
    const res = await deployFiles(this.server, this.owner.key, agent.name, { 'main.py': code });
    expect(res.status).toBe(202);
    return res.body;
  }

  /** Plays the deployment's build pod to success. */
  async finishBuild(d: Deployment): Promise<void> {
    await eventually(
      () =>
        clients(this.server.kc).batch.readNamespacedJob({
          namespace: this.owner.namespace,
          name: OBJECT_NAMES.buildJob(d.id),
        }),
      () => true,
      'build job',
    );
    await finishPods(
      this.server.kc,
      this.owner.namespace,
      `${LABELS.deploymentId}=${d.id},${LABELS.component}=build`,
      { succeeded: true },
    );
  }

  /** Plays the pods serving `d` to ready. */
  async serveReady(agent: AgentRecord, d: Deployment): Promise<void> {
    await readyPods(
      this.server.kc,
      this.owner.namespace,
      `${LABELS.agentId}=${agent.id},${LABELS.deploymentId}=${d.id},${LABELS.component}=service`,
    );
  }

  /** Waits for the deployment (or run) to reach `state`. */
  async waitState(id: string, state: string): Promise<Deployment> {
    return eventually(
      async () =>
        (
          await call<Deployment>(this.server, 'GET', `/api/v1/deployments/${id}`, {
            key: this.owner.key,
          })
        ).body,
      (d) => d.state === state,
      `deployment ${id} ${state}`,
      30_000,
      resourceChanges(this.server.kc, 'AgentDeployment', this.owner.namespace),
    );
  }

  /** Deploys, builds and (for a service) serves a new version until it is active. */
  async deployActive(agent: AgentRecord): Promise<Deployment> {
    const d = await this.deploy(agent);
    await this.finishBuild(d);
    if (agent.agent_type !== 'job') await this.serveReady(agent, d);
    return this.waitState(d.id, 'active');
  }

  /** The API key the deployment's pods get, read from its Secret as the kubelet would. */
  async deploymentKey(d: Deployment): Promise<string> {
    const secret = await clients(this.server.kc).core.readNamespacedSecret({
      namespace: this.owner.namespace,
      name: OBJECT_NAMES.deploymentKeySecret(d.id),
    });
    return Buffer.from(secret.data?.SVC_API_KEY ?? '', 'base64').toString();
  }
}

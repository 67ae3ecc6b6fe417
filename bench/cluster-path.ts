/**
 * The cluster path on a real node (#37's targets), measured as a cluster admin and a user meet
 * it: the images built here (warm cache), the node's bring-up, the README's install until every
 * platform pod is Ready, a cold deploy of `examples/python-service` through the Kubernetes
 * driver (POST deploy to `active`, build pod included), and wakes from zero through the edge
 * (Deployment 0 → 1 → first answer), each wake split into its stages as watches on this machine
 * see them (test/cluster/wake-stages.ts). AGENTS agents (default 5) are deployed with a
 * one-minute idle timeout; they scale to zero together and each is woken alone, ROUNDS times
 * (default 2: about a minute of idling per round).
 *
 *   npx tsx bench/cluster-path.ts              # builds the images first (hack/images.sh --local)
 *   SKIP_IMAGES=1 AGENTS=3 ROUNDS=1 npx tsx bench/cluster-path.ts
 *
 * Needs what `npm run test:cluster` needs (root, the node's tools: hack/test-cluster.sh).
 */
import { execFileSync } from 'node:child_process';
import { OBJECT_NAMES } from '../crds/src/index.js';
import { repoRoot } from '../hack/lib/paths.js';
import { bootCluster, clusterState, stopCluster } from '../test/cluster/node-cluster.js';
import {
  accountNamespace,
  adminKube,
  agentUrl,
  answerThroughEdge,
  asAdmin,
  controlPlane,
  deployed,
  example,
  frontDoors,
  platformReady,
  readmeFirstKey,
  readmeInstall,
  viaEdge,
  type Session,
} from '../test/cluster/platform.js';
import { asleep, measureWake, quantiles, type WakeStages } from '../test/cluster/wake-stages.js';

const AGENTS = Number(process.env.AGENTS ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 2);

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

if (!process.env.SKIP_IMAGES) {
  const t = performance.now();
  execFileSync('bash', ['hack/images.sh', '--local'], { cwd: repoRoot, stdio: 'inherit' });
  console.log(
    `cluster path: every image built (hack/images.sh --local) in ${seconds(performance.now() - t)}`,
  );
}

const tBoot = performance.now();
await bootCluster();
try {
  const { kubeconfig } = await clusterState();
  console.log(
    `cluster path: node up with the images imported and FerretDB ready in ${seconds(performance.now() - tBoot)}`,
  );
  const { kc, core } = adminKube(kubeconfig);

  const tInstall = performance.now();
  await asAdmin(kubeconfig, await readmeInstall());
  await platformReady(kc, core);
  console.log(
    `  README install to every platform pod Ready: ${seconds(performance.now() - tInstall)}`,
  );
  const doors = await frontDoors(core);
  const first = await readmeFirstKey(kubeconfig, doors.apiUrl);
  const s: Session = { kubeconfig, ...doors, account: first.account, key: first.key };
  const api = controlPlane(s);

  const files = await example('python-service');
  const deploys: number[] = [];
  const agents: Array<{ name: string; id: string }> = [];
  for (let i = 0; i < AGENTS; i++) {
    const name = `bench-py-${i}`;
    await api('POST', '/api/v1/agents', { name, runtime: 'python3.11', idle_timeout_minutes: 1 });
    const t = performance.now();
    await deployed(s, kc, name, files);
    deploys.push(performance.now() - t);
    await answerThroughEdge(s, name);
    agents.push({ name, id: (await api<{ id: string }>('GET', `/api/v1/agents/${name}`)).body.id });
  }
  console.log(
    `  cold deploy → active, examples/python-service (build pod, then the service's pod Ready), ${deploys.length} agents: ${quantiles(deploys)} (${deploys.map((d) => d.toFixed(0)).join(', ')} ms)`,
  );

  const namespace = accountNamespace(s);
  const wakes: WakeStages[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const tIdle = performance.now();
    for (const agent of agents) {
      await asleep(kc, namespace, agent.id, 240_000);
    }
    console.log(
      `  round ${round + 1}: ${agents.length} agents at zero after ${seconds(performance.now() - tIdle)} of idling`,
    );
    for (const agent of agents) {
      const url = await agentUrl(s, agent.name);
      const wake = await measureWake(kc, namespace, agent.id, OBJECT_NAMES.workload(agent.id), () =>
        viaEdge(s, url),
      );
      if (wake.status !== 200)
        throw new Error(`the wake of ${agent.name} answered ${wake.status}: ${wake.text}`);
      wakes.push(wake);
      // Each wake alone.
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
  const stage = (f: (w: WakeStages) => number) => quantiles(wakes.map(f));
  console.log(
    `  wake from zero through the edge, ${wakes.length} wakes: ${stage((w) => w.answered)}`,
  );
  console.log(
    `    request → Deployment scaled to 1 (edge mark, operator):        ${stage((w) => w.scaled)}`,
  );
  console.log(
    `    scaled → pod created (ReplicaSet controller):                   ${stage((w) => w.podCreated - w.scaled)}`,
  );
  console.log(
    `    created → scheduled (kube-scheduler):                           ${stage((w) => w.scheduled - w.podCreated)}`,
  );
  console.log(
    `    scheduled → container running (sandbox, CNI, no pull: present): ${stage((w) => w.started - w.scheduled)}`,
  );
  console.log(
    `    running → Ready (runner up, readiness probe):                   ${stage((w) => w.ready - w.started)}`,
  );
  console.log(
    `    Ready → answer (operator's status, edge, proxy):                ${stage((w) => w.answered - w.ready)}`,
  );
} finally {
  await stopCluster();
}

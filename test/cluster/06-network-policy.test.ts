/**
 * NetworkPolicies enforced on the real node (kube-network-policies, started by hack/node): the
 * policy the Kubernetes driver puts in every account namespace keeps an agent's pod from the
 * engine, MongoDB and another account's agent, which the platform's own pods do reach, while
 * the agent still reaches the API's front doors.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { CoreV1Api } from '@kubernetes/client-node';
import {
  accountNamespace,
  adminKube,
  answerThroughEdge,
  asAdmin,
  call,
  deployed,
  example,
  session,
  type Session,
} from './platform.js';
import { servicePods } from './wake-stages.js';

let s: Session;
let core: CoreV1Api;
/** Where each kind of peer answers (cluster IPs and a pod IP), as host:port. */
const peers: Record<'api' | 'engine' | 'mongodb' | 'otherAgent', string> = {
  api: '',
  engine: '',
  mongodb: '',
  otherAgent: '',
};
let agentPod: string;

/** The running pod of a service agent, by the agent's id. */
async function servicePod(namespace: string, agentId: string) {
  const pods = await core.listNamespacedPod({
    namespace,
    labelSelector: servicePods(agentId),
  });
  const pod = pods.items.find(
    (p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp,
  );
  if (!pod) throw new Error(`no running pod of agent ${agentId} in ${namespace}`);
  return pod;
}

const clusterIp = async (name: string, namespace: string) =>
  (await core.readNamespacedService({ name, namespace })).spec!.clusterIP!;

beforeAll(async () => {
  s = await session();
  ({ core } = adminKube(s.kubeconfig));
  const admin = (cmd: string) =>
    asAdmin(
      s.kubeconfig,
      `kubectl -n svc-system exec deploy/svc-apiserver -- node --import tsx apiserver/src/admin/main.ts ${cmd}`,
    );
  // A second account with a service of its own.
  const other = JSON.parse(await admin('create-account --name other --tier starter')) as {
    _id: string;
  };
  const otherKey = (
    JSON.parse(await admin(`create-key --account ${other._id} --env live`)) as {
      text: string;
    }
  ).text;
  const o: Session = { ...s, account: other._id, key: otherKey };
  const { kc } = adminKube(s.kubeconfig);
  expect(
    (
      await call(o.apiUrl, o.key, 'POST', '/api/v1/agents', {
        name: 'neighbour',
        runtime: 'python3.11',
      })
    ).status,
  ).toBe(201);
  await deployed(o, kc, 'neighbour', await example('python-service'));
  await answerThroughEdge(o, 'neighbour');
  const neighbour = (await call<{ id: string }>(o.apiUrl, o.key, 'GET', '/api/v1/agents/neighbour'))
    .body;
  peers.otherAgent = `${(await servicePod(accountNamespace(o), neighbour.id)).status!.podIP}:8080`;
  // This account's agent, awake.
  await answerThroughEdge(s, 'py-svc');
  const mine = (await call<{ id: string }>(s.apiUrl, s.key, 'GET', '/api/v1/agents/py-svc')).body;
  agentPod = (await servicePod(accountNamespace(s), mine.id)).metadata!.name!;
  peers.api = `${await clusterIp('svc-apiserver', 'svc-system')}:8000`;
  peers.engine = `${await clusterIp('svc-engine', 'svc-system')}:6333`;
  peers.mongodb = `${await clusterIp('mongodb', 'db')}:27017`;
});

/** Whether a TCP connection from the agent's pod to `peer` opens within 3 s. */
async function agentConnects(peer: string): Promise<boolean> {
  const [host, port] = peer.split(':');
  const probe =
    'import socket,sys; s=socket.socket(); s.settimeout(3); print("open" if s.connect_ex((sys.argv[1], int(sys.argv[2])))==0 else "closed")';
  const out = await asAdmin(
    s.kubeconfig,
    `kubectl -n ${accountNamespace(s)} exec ${agentPod} -c agent -- python3 -c '${probe}' ${host} ${port}`,
  );
  return out.trim() === 'open';
}

/** Whether a TCP connection from an API server pod (the platform) to `peer` opens within 3 s. */
async function platformConnects(peer: string): Promise<boolean> {
  const [host, port] = peer.split(':');
  const probe =
    "const s=require('net').connect(+process.argv[2],process.argv[1]);s.setTimeout(3000,()=>{console.log('closed');process.exit()});s.on('connect',()=>{console.log('open');process.exit()});s.on('error',()=>{console.log('closed');process.exit()})";
  const out = await asAdmin(
    s.kubeconfig,
    `kubectl -n svc-system exec deploy/svc-apiserver -- node -e "${probe}" ${host} ${port}`,
  );
  return out.trim() === 'open';
}

describe('NetworkPolicies on the real node', () => {
  it("lets an agent's pod reach the API's front doors", async () => {
    expect(await agentConnects(peers.api)).toBe(true);
  });

  it("keeps an agent's pod from the engine, MongoDB and another account's agent, which the platform reaches", async () => {
    const seen: Record<string, { agent: boolean; platform: boolean }> = {};
    for (const name of ['engine', 'mongodb', 'otherAgent'] as const) {
      seen[name] = {
        agent: await agentConnects(peers[name]),
        platform: await platformConnects(peers[name]),
      };
    }
    expect(seen).toEqual({
      engine: { agent: false, platform: true },
      mongodb: { agent: false, platform: true },
      otherAgent: { agent: false, platform: true },
    });
  });
});

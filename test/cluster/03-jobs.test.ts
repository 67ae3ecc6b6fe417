/**
 * Jobs on the Kubernetes driver, through the public REST API: a run whose pod reads its payload
 * back, a spawn from another agent, a cron schedule that fires (after a `helm upgrade` that
 * points CronJobs at a local image), and a secret the agent reads as an environment variable.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resourceChanges, waitFor } from '../harness/wait.js';
import {
  accountNamespace,
  adminKube,
  answerThroughEdge,
  asAdmin,
  controlPlane,
  deployed,
  example,
  session,
  type Session,
} from './platform.js';

let s: Session;
let kc: KubeConfig;
let api: ReturnType<typeof controlPlane>;

beforeAll(async () => {
  s = await session();
  ({ kc } = adminKube(s.kubeconfig));
  api = controlPlane(s);
});

/** A run's deployment once it has ended (completed or failed). */
async function runEnded(deploymentId: string) {
  return waitFor(
    `run ${deploymentId} to end`,
    async () => {
      const d = (
        await api<{ state: string; error_message: string | null }>(
          'GET',
          `/api/v1/deployments/${deploymentId}`,
        )
      ).body;
      return d.state === 'completed' || d.state === 'failed' ? d : undefined;
    },
    { timeoutMs: 120_000, wakeOn: resourceChanges(kc, 'AgentDeployment', accountNamespace(s)) },
  );
}

/** A job that reads its payload back from the API and exits 0 only when it is `{"n": 7}`. */
const PAYLOAD_CHECKING_JOB = [
  'import json, os, sys, urllib.request',
  "url = f\"{os.environ['SVC_API_URL']}/api/v1/deployments/{os.environ['SVC_DEPLOYMENT_ID']}/payload\"",
  'req = urllib.request.Request(url, headers={"Authorization": f"Bearer {os.environ[\'SVC_API_KEY\']}"})',
  'payload = json.load(urllib.request.urlopen(req))["payload"]',
  'print("payload", payload, flush=True)',
  'sys.exit(0 if payload == {"n": 7} else 3)',
  '',
].join('\n');

describe('jobs, schedules, spawns and secrets on the Kubernetes driver', () => {
  it('runs a job whose pod reads its payload back (it exits 3 on any other payload)', async () => {
    expect(
      (await api('POST', '/api/v1/agents', { name: 'payload-job', agent_type: 'job' })).status,
    ).toBe(201);
    await deployed(s, kc, 'payload-job', { 'main.py': PAYLOAD_CHECKING_JOB });
    const good = await api<{ deployment_id: string }>('POST', '/api/v1/agents/payload-job/run', {
      payload: { n: 7 },
    });
    expect(good.status).toBe(202);
    expect(await runEnded(good.body.deployment_id)).toMatchObject({ state: 'completed' });
    const bad = await api<{ deployment_id: string }>('POST', '/api/v1/agents/payload-job/run', {
      payload: { n: 8 },
    });
    expect((await runEnded(bad.body.deployment_id)).state).toBe('failed');
  });

  it('spawns the job from another agent; the child runs with its own payload', async () => {
    expect(
      (
        await api('POST', '/api/v1/agents', {
          name: 'spawner',
          spawn_enabled: true,
          allowed_workers: ['payload-job'],
        })
      ).status,
    ).toBe(201);
    await deployed(s, kc, 'spawner', await example('python-service'));
    const spawned = await api<{ spawn_id: string; child_agent_id: string }>(
      'POST',
      '/api/v1/agents/spawner/spawn',
      { child_agent_id: 'payload-job', payload: { n: 7 } },
    );
    expect(spawned.status).toBeLessThan(300);
    expect(await runEnded(spawned.body.spawn_id)).toMatchObject({ state: 'completed' });
  });

  it("installs an agent's dependencies in its build pod, trusting the CAs this machine adds (agents.buildCACertificates)", async () => {
    // This machine's egress may pass through a TLS-intercepting proxy whose CA is among the
    // local ones; the build pods get them the way a cluster admin gives them, by a helm value.
    const local = '/usr/local/share/ca-certificates';
    const pems = existsSync(local)
      ? (await readdir(local)).filter((f) => f.endsWith('.crt')).map((f) => join(local, f))
      : [];
    if (pems.length > 0) {
      const bundle = join(tmpdir(), 'svc-cluster-build-ca.pem');
      await writeFile(bundle, (await Promise.all(pems.map((p) => readFile(p, 'utf8')))).join('\n'));
      await asAdmin(
        s.kubeconfig,
        `helm upgrade svc charts/svc -n svc-system --reuse-values --set-file agents.buildCACertificates=${bundle} --wait --timeout 3m`,
      );
    }
    expect(
      (await api('POST', '/api/v1/agents', { name: 'deps-py', runtime: 'python3.11' })).status,
    ).toBe(201);
    await deployed(s, kc, 'deps-py', {
      'requirements.txt': 'six==1.16.0\n',
      'main.py': [
        'import six',
        'async def app(scope, receive, send):',
        '    if scope["type"] != "http":',
        '        return',
        '    await send({"type": "http.response.start", "status": 200, "headers": []})',
        '    await send({"type": "http.response.body", "body": f"six {six.__version__}".encode()})',
        '',
      ].join('\n'),
    });
    expect(await answerThroughEdge(s, 'deps-py')).toBe('six 1.16.0');
    expect(
      (await api('POST', '/api/v1/agents', { name: 'deps-node', runtime: 'node22' })).status,
    ).toBe(201);
    await deployed(s, kc, 'deps-node', {
      'package.json': JSON.stringify({
        name: 'deps-node',
        type: 'module',
        dependencies: { ms: '2.1.3' },
      }),
      'server.mjs': [
        "import ms from 'ms';",
        "export default { fetch: () => new Response(`ms ${ms('2h')}`) };",
        '',
      ].join('\n'),
      'svc.yaml': 'runtime: node22\ntype: service\nentrypoint: server.mjs\n',
    });
    expect(await answerThroughEdge(s, 'deps-node')).toBe('ms 7200000');
  });

  it('fires a cron schedule after a helm upgrade points CronJobs at a local curl image', async () => {
    // The chart's trigger image (curlimages/curl) is not built here; an upgrade with a changed
    // value rolls the operators, which keep reconciling.
    await asAdmin(
      s.kubeconfig,
      'helm upgrade svc charts/svc -n svc-system --reuse-values ' +
        '--set operator.triggerImage=localhost/svc-test/curl:bookworm --wait --timeout 3m',
    );
    // Minutes five apart (the 300 s minimum) starting at the next minute with time to spare.
    const now = new Date();
    const first = (now.getUTCMinutes() + (now.getUTCSeconds() > 40 ? 2 : 1)) % 5;
    const minutes = Array.from({ length: 12 }, (_, i) => first + 5 * i).join(',');
    const files = await example('scheduled-job');
    files['svc.yaml'] = files['svc.yaml']!.replace(
      /schedule: .*/,
      `schedule: '${minutes} * * * *'`,
    );
    expect(
      (await api('POST', '/api/v1/agents', { name: 'ticker', agent_type: 'job' })).status,
    ).toBe(201);
    await deployed(s, kc, 'ticker', files);
    const run = await waitFor(
      'a cron-triggered run of ticker that completed',
      async () => {
        const runs = (
          await api<{ items: Array<{ trigger_source: string; state: string }> }>(
            'GET',
            '/api/v1/agents/ticker/runs',
          )
        ).body.items;
        return runs?.find((r) => r.trigger_source === 'cron' && r.state === 'completed');
      },
      { timeoutMs: 200_000, everyMs: 2_000 },
    );
    expect(run.trigger_source).toBe('cron');
  });

  it('gives the agent its secret as an environment variable, and never returns the value', async () => {
    expect((await api('POST', '/api/v1/agents', { name: 'secret-svc' })).status).toBe(201);
    const value = `s3cret-${Date.now()}`;
    expect(
      (await api('POST', '/api/v1/agents/secret-svc/secrets', { key: 'GREETING', value })).status,
    ).toBeLessThan(300);
    const listed = await api('GET', '/api/v1/agents/secret-svc/secrets');
    expect(JSON.stringify(listed.body)).not.toContain(value);
    await deployed(s, kc, 'secret-svc', {
      'main.py': [
        'import os',
        'async def app(scope, receive, send):',
        '    if scope["type"] != "http":',
        '        return',
        '    body = os.environ.get("GREETING", "missing").encode()',
        '    await send({"type": "http.response.start", "status": 200, "headers": []})',
        '    await send({"type": "http.response.body", "body": body})',
        '',
      ].join('\n'),
    });
    expect(await answerThroughEdge(s, 'secret-svc')).toBe(value);
  });
});

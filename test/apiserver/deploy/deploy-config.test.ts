/** What the code of a deploy can fail on: svc.yaml, the schedule, the entry point, the Dockerfile. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NODE_SERVICE, PYTHON_SERVICE } from '../../factories/archives.js';
import { readAgent } from '../agents/operator-view.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../control-plane-server.js';
import { deployFiles } from './deploy-helpers.js';

let server: TestServer;
let owner: Caller;
let counter = 0;

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server, { tier: 'starter' });
});

afterAll(async () => {
  await server.close();
});

async function newAgent(
  extra: Record<string, unknown> = {},
): Promise<{ id: string; name: string }> {
  const name = `cfg-${++counter}`;
  const res = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name, ...extra },
  });
  expect(res.status).toBe(201);
  return { id: res.body.id, name };
}

async function expectFailed(
  files: Record<string, string>,
  message: RegExp,
  extra: Record<string, unknown> = {},
) {
  const agent = await newAgent(extra);
  const res = await deployFiles(server, owner.key, agent.name, files);
  expect(res.status).toBe(202);
  expect(res.body.state).toBe('failed');
  expect(res.body.error_message).toMatch(message);
  expect(res.body.can_redeploy).toBe(false);
  // The failure is what GET /deployments/{id} reports too, and the agent keeps its settings.
  const read = await call<{ state: string; error_message: string }>(
    server,
    'GET',
    `/api/v1/deployments/${res.body.id}`,
    {
      key: owner.key,
    },
  );
  expect(read.body).toMatchObject({ state: 'failed', error_message: res.body.error_message });
  const cr = await readAgent(server.kc, owner.namespace, agent.id);
  expect(cr.spec.targetVersion ?? null).toBeNull();
  return res.body;
}

const py = { 'main.py': PYTHON_SERVICE };

describe('svc.yaml', () => {
  it('fails the deploy for a runtime that is not a full value', async () => {
    await expectFailed({ ...py, 'svc.yaml': 'runtime: python\n' }, /full value/);
  });

  it('fails the deploy for keep_alive: true on a job', async () => {
    await expectFailed({ ...py, 'svc.yaml': 'type: job\nkeep_alive: true\n' }, /keep_alive/);
  });

  it('fails the deploy for an unknown key or a file that is not a mapping', async () => {
    await expectFailed({ ...py, 'svc.yaml': 'memroy_mb: 512\n' }, /memroy_mb/);
    await expectFailed({ ...py, 'svc.yaml': '- a\n- b\n' }, /svc\.yaml/);
  });

  it('applies the file as a merge patch: omitted keys keep their values, schedule: null removes the schedule', async () => {
    const agent = await newAgent({ memory_mb: 512, agent_type: 'job' });
    const job = { 'main.py': 'print("tick")\n' };
    await deployFiles(server, owner.key, agent.name, {
      ...job,
      'svc.yaml': 'schedule: "0 * * * *"\nregions: [eu-west]\n',
    });
    let cr = await readAgent(server.kc, owner.namespace, agent.id);
    expect(cr.spec).toMatchObject({
      memoryMb: 512,
      schedule: '0 * * * *',
      regions: ['eu-west'],
      agentType: 'job',
    });

    await deployFiles(server, owner.key, agent.name, { ...job, 'svc.yaml': 'memory_mb: 256\n' });
    cr = await readAgent(server.kc, owner.namespace, agent.id);
    expect(cr.spec).toMatchObject({ memoryMb: 256, schedule: '0 * * * *', regions: ['eu-west'] });

    await deployFiles(server, owner.key, agent.name, { ...job, 'svc.yaml': 'schedule: null\n' });
    cr = await readAgent(server.kc, owner.namespace, agent.id);
    expect(cr.spec.schedule).toBeNull();
    expect(cr.spec.memoryMb).toBe(256);
  });

  it('says in the response and in the log that a deploy without svc.yaml used the current settings', async () => {
    const agent = await newAgent({ memory_mb: 512 });
    const res = await deployFiles(server, owner.key, agent.name, py);
    expect(res.status).toBe(202);
    expect(res.body.state).toBe('queued');
    const warning =
      "No svc.yaml at the archive root, so the agent's current settings were used: runtime python3.11, type service, entrypoint main.py, memory_mb 512, no schedule. Add svc.yaml to the project root to set them with the code.";
    expect(res.body.warnings).toEqual([warning]);
    const read = await call<{ warnings: string[] }>(
      server,
      'GET',
      `/api/v1/deployments/${res.body.id}`,
      { key: owner.key },
    );
    expect(read.body.warnings).toEqual([warning]);
    const log = await call<{ items: Array<{ stream: string; level: string; message: string }> }>(
      server,
      'GET',
      `/api/v1/agents/${agent.name}/logs`,
      { key: owner.key },
    );
    expect(log.body.items).toEqual([
      expect.objectContaining({
        stream: 'system',
        level: 'WARN',
        message: `version 1: warning: ${warning}`,
      }),
    ]);
  });

  it('names an svc.yaml that sits in a folder instead of the archive root', async () => {
    const agent = await newAgent();
    const res = await deployFiles(server, owner.key, agent.name, {
      'project/main.py': PYTHON_SERVICE,
      'project/svc.yaml': 'runtime: python3.12\n',
    });
    // Without its svc.yaml the deploy looks for main.py at the root, and says why.
    expect(res.body.state).toBe('failed');
    expect(res.body.error_message).toMatch(/main\.py/);
    expect(res.body.warnings).toEqual([
      expect.stringContaining(
        "The archive has project/svc.yaml: archive the project's contents, not the folder holding them.",
      ),
    ]);
  });

  it('has no warning when svc.yaml is there', async () => {
    const agent = await newAgent();
    for (const name of ['svc.yaml', 'svc.yml']) {
      const res = await deployFiles(server, owner.key, agent.name, {
        ...py,
        [name]: 'memory_mb: 256\n',
      });
      expect([name, res.body.state, res.body.warnings]).toEqual([name, 'queued', []]);
    }
  });

  it('defaults the entry point by runtime', async () => {
    const agent = await newAgent({ runtime: 'node22' });
    const res = await deployFiles(server, owner.key, agent.name, { 'index.js': NODE_SERVICE });
    expect(res.body.state).toBe('queued');
    expect((await readAgent(server.kc, owner.namespace, agent.id)).spec.entrypoint).toBe(
      'index.js',
    );
  });
});

describe('schedule rejections', () => {
  const job = { 'main.py': 'print("tick")\n' };
  it.each([
    ['an @-alias', '@hourly', /alias/i],
    ['6 fields (seconds)', '0 */5 * * * *', /5 fields/],
    ['an impossible date', '0 0 30 2 *', /never fires/],
    ['a stepped wrapping minute range', '50-10/5 * * * *', /minute/],
    ['more often than every 300 s', '*/2 * * * *', /300 seconds/],
  ])('fails the deploy for %s', async (_case, schedule, message) => {
    await expectFailed({ ...job, 'svc.yaml': `type: job\nschedule: "${schedule}"\n` }, message);
  });

  it('accepts a schedule every 5 minutes', async () => {
    const agent = await newAgent({ agent_type: 'job' });
    const res = await deployFiles(server, owner.key, agent.name, {
      ...job,
      'svc.yaml': 'schedule: "*/5 * * * *"\n',
    });
    expect(res.body.state).toBe('queued');
  });
});

describe('entry point', () => {
  it('fails the deploy when a service entry point does not export app', async () => {
    await expectFailed({ 'main.py': 'print("no app here")\n' }, /app/);
    await expectFailed({ 'index.js': 'console.log(1)\n' }, /app/, { runtime: 'node22' });
  });

  it("fails module.exports in an entry point the agent's package.json makes an ES module", async () => {
    const failed = await expectFailed(
      {
        'package.json': JSON.stringify({ type: 'module', dependencies: {} }),
        'index.js': NODE_SERVICE,
      },
      /ES module \(package\.json has "type": "module"\)/,
      { runtime: 'node22' },
    );
    expect(failed.error_message).toMatch(/^index\.js is loaded as an ES module/);
  });

  it('takes a CommonJS entry point without a package.json of its own', async () => {
    const agent = await newAgent({ runtime: 'node22' });
    const res = await deployFiles(server, owner.key, agent.name, { 'index.js': NODE_SERVICE });
    expect(res.body.state).toBe('queued');
  });

  it('fails the deploy when the entry point is not in the archive', async () => {
    await expectFailed({ 'server.py': PYTHON_SERVICE }, /main\.py/);
  });

  it('does not require an app export from a job', async () => {
    const agent = await newAgent({ agent_type: 'job' });
    const res = await deployFiles(server, owner.key, agent.name, { 'main.py': 'print("job")\n' });
    expect(res.body.state).toBe('queued');
  });
});

describe('runtime dockerfile', () => {
  it('fails the deploy with no Dockerfile at the archive root', async () => {
    await expectFailed({ 'sub/Dockerfile': 'FROM alpine\nCMD ["true"]\n' }, /Dockerfile/, {
      runtime: 'dockerfile',
      tier: 'starter',
    });
  });

  it('fails the deploy with no CMD and no ENTRYPOINT', async () => {
    await expectFailed({ Dockerfile: 'FROM alpine\nRUN echo hi\n' }, /CMD|ENTRYPOINT/, {
      runtime: 'dockerfile',
      tier: 'starter',
    });
  });

  it('records the warnings of a Dockerfile that builds', async () => {
    const agent = await newAgent({ runtime: 'dockerfile', tier: 'starter' });
    const res = await deployFiles(server, owner.key, agent.name, {
      Dockerfile: 'FROM python:3.12\nRUN chmod 777 /app\nCMD ["python", "server.py"]\n',
      'server.py': 'print("serving")\n',
    });
    expect(res.body.state).toBe('queued');
    expect(res.body.warnings.length).toBeGreaterThanOrEqual(4);
    const text = res.body.warnings.join('\n');
    expect(text).toMatch(/EXPOSE/);
    expect(text).toMatch(/\/health/);
    expect(text).toMatch(/777|writable/);
    expect(text).toMatch(/USER|root/);
  });
});

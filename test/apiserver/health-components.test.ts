/**
 * `/api/v1/health` shows the single-machine platform's report on its
 * components (SVC_PLATFORM_STATUS_FILE, written by hack/lib/supervisor.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { writeComponentReport, type ComponentReport } from '../../common/component-status.js';
import { call, startControlPlaneServer, type TestServer } from './control-plane-server.js';

let dir: string;
let statusFile: string;
let server: TestServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-health-'));
  statusFile = join(dir, 'platform-status.json');
  server = await startControlPlaneServer({ platformStatusFile: statusFile });
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const report: ComponentReport = {
  engine: {
    state: 'running',
    since: '2030-01-01T00:00:03.000Z',
    restarts: 1,
    last_exit: 'signal SIGKILL',
    last_exit_at: '2030-01-01T00:00:01.000Z',
  },
  operator: {
    state: 'restarting',
    since: '2030-01-01T00:00:02.000Z',
    restarts: 0,
    last_exit: 'exit code 1',
    last_exit_at: '2030-01-01T00:00:02.000Z',
  },
  apiserver: {
    state: 'running',
    since: '2030-01-01T00:00:00.000Z',
    restarts: 0,
    last_exit: null,
    last_exit_at: null,
  },
};

describe('GET /api/v1/health on the single-machine platform', () => {
  it('answers {status:"ok"} alone while the platform has written no report', async () => {
    const res = await call(server, 'GET', '/api/v1/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it("shows each component's state and restarts as the supervisor last wrote them", async () => {
    await writeComponentReport(statusFile, report);
    const res = await call(server, 'GET', '/api/v1/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', components: report });

    const later = { ...report, operator: { ...report.operator!, state: 'running' as const } };
    await writeComponentReport(statusFile, later);
    expect((await call(server, 'GET', '/api/v1/health')).body).toEqual({
      status: 'ok',
      components: later,
    });
  });

  it('says nothing of components when the report is unreadable, and still answers 200', async () => {
    await writeFile(statusFile, '{"components": ');
    const res = await call(server, 'GET', '/api/v1/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('answers with a body its OpenAPI document describes', async () => {
    await writeComponentReport(statusFile, report);
    type Document = {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: unknown;
    };
    const doc = (await call<Document>(server, 'GET', '/openapi.json')).body;
    const ok = doc.paths['/api/v1/health']?.get?.responses['200'] as {
      content: Record<string, { schema: object }>;
    };
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile({
      ...ok.content['application/json']!.schema,
      components: doc.components,
    });
    const body = (await call(server, 'GET', '/api/v1/health')).body;
    expect(validate(body) ? [] : validate.errors).toEqual([]);
    expect(validate({ status: 'ok', components: { engine: { state: 'sleeping' } } })).toBe(false);
  });
});

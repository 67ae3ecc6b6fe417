import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveFile, withDashboard } from './site.js';
import { dashboardCsp } from './security-headers.js';

let dir: string;
let server: Server;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dash-site-'));
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'dist', 'index.html'), '<!doctype html><title>x</title>');
  writeFileSync(join(dir, 'dist', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'outside');
  const api = (_req: unknown, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('api');
  };
  server = createServer(
    withDashboard(api, { dir: join(dir, 'dist'), vectorsUrl: () => 'http://127.0.0.1:9/x' }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('the dashboard site', () => {
  it('serves index.html at /dashboard/ with the strict CSP and nosniff', async () => {
    const res = await fetch(`${base}/dashboard/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toBe(dashboardCsp('http://127.0.0.1:9'));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toContain('<title>x</title>');
  });

  it('serves scripts as JavaScript and config.json with the vector plane URL', async () => {
    const js = await fetch(`${base}/dashboard/app.js`);
    expect(js.headers.get('content-type')).toContain('text/javascript');
    const config = await fetch(`${base}/dashboard/config.json`);
    expect(await config.json()).toEqual({ vectors_url: 'http://127.0.0.1:9/x' });
  });

  it('redirects /dashboard, refuses writes, answers 404 for missing and escaping paths', async () => {
    const redirect = await fetch(`${base}/dashboard`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([308, '/dashboard/']);
    expect((await fetch(`${base}/dashboard/`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${base}/dashboard/nope.js`)).status).toBe(404);
    expect((await fetch(`${base}/dashboard/..%2fsecret.txt`)).status).toBe(404);
  });

  it('leaves every other path to the API', async () => {
    expect(await (await fetch(`${base}/api/v1/health`)).text()).toBe('api');
    expect(await (await fetch(`${base}/dashboards`)).text()).toBe('api');
  });
});

describe('resolveFile', () => {
  it('keeps paths inside the directory and refuses dot segments', () => {
    expect(resolveFile('/srv/d', '')).toBe('/srv/d/index.html');
    expect(resolveFile('/srv/d/', 'a/b.js')).toBe('/srv/d/a/b.js');
    expect(resolveFile('/srv/d', '../x')).toBeNull();
    expect(resolveFile('/srv/d', '%2e%2e/x')).toBeNull();
    expect(resolveFile('/srv/d', '.env')).toBeNull();
    expect(resolveFile('/srv/d', '%zz')).toBeNull();
  });
});

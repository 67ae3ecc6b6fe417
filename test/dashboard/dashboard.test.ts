/**
 * The web dashboard in a real browser (Debian's chromium driven by
 * puppeteer-core) against the real platform: sign in with a key, deploy
 * examples/python-service by uploading its folder (.svcignore applied in the
 * browser), watch it reach active, open its URL through the edge, follow a
 * log line printed after the page opened, set a secret whose value is never
 * shown again, run it with a payload, browse a collection of 120 points over
 * three pages, query the nearest 50, tick two points and delete them, and see
 * the count drop by two; then filters, a pasted vector, the schema's
 * conformance, a region change, stop, start and delete. Screenshots of the main pages go to
 * .dev/screenshots/dashboard/ (ignored by git).
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { call } from '../apiserver/control-plane-server.js';
import {
  clickButton,
  clickConfirmed,
  launchBrowser,
  lowContrast,
  screenshot,
  type LowContrast,
  waitForText,
  watchProblems,
  type PageElement,
  type PageWindow,
} from './browser.js';
import { startDashboardPlatform, type DashboardPlatform } from './dashboard-platform.js';

// A deploy waits for a Python build on a loaded machine, then for its service.
jest.setTimeout(300_000);

const example = fileURLToPath(new URL('../../examples/python-service', import.meta.url));
const AGENT = 'web-py';
const COLLECTION = 'dash-points';

let platform: DashboardPlatform;
let browser: Browser;
let page: Page;
let problems: string[];

beforeAll(async () => {
  platform = await startDashboardPlatform();
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  problems = watchProblems(page);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

/** Goes to a page of the dashboard by its hash route. */
/** Texts below WCAG AA contrast on the pages photographed so far (checked by the last case). */
const contrastProblems: LowContrast[] = [];

/** Saves a screenshot of the page as `name` and notes its texts below WCAG AA contrast. */
async function photograph(name: string): Promise<void> {
  await screenshot(page, name);
  contrastProblems.push(...(await lowContrast(page, name)));
}

async function open(route: string): Promise<void> {
  await page.evaluate((hash: string) => {
    (globalThis as unknown as PageWindow).location.hash = hash;
  }, route);
}

/** A copy of the example with a file .svcignore leaves out and one the built-in *.log does. */
function project(): string {
  const dir = join(platform.dir, 'python-service');
  cpSync(example, dir, { recursive: true });
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'model.bin'), randomBytes(4096));
  writeFileSync(join(dir, '.svcignore'), 'data/\n');
  writeFileSync(join(dir, 'debug.log'), 'left out by the built-in *.log\n');
  return dir;
}

/** Vector-plane calls from the test itself (setting up data), with the owner's key. */
async function vectors<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await call<T>({ base: platform.vectors.base }, method, path, {
    key: platform.owner.key,
    body,
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** The text of the focused element (run in the page). */
function activeText(): string {
  const { document } = globalThis as unknown as PageWindow & {
    document: { activeElement: PageElement | null };
  };
  return document.activeElement?.textContent?.trim() ?? '';
}

/** The ids of the points the explorer's table lists once it shows `of` (`page-2`, `nearest`). */
async function shownPoints(of: string): Promise<string[]> {
  await page.waitForSelector(`[data-testid=points][data-shown="${of}"]`);
  return listedIds();
}

/** The ids of the points listed in the explorer's table. */
function listedIds(): Promise<string[]> {
  return page.$$eval('[data-testid=points] tbody tr', (rows) =>
    rows.map((r) => r.getAttribute('data-point') ?? ''),
  );
}

describe('the dashboard', () => {
  it('is served with a strict Content-Security-Policy', async () => {
    const res = await page.goto(platform.dashboardUrl);
    const headers = res!.headers();
    expect(headers['content-security-policy']).toBe(
      `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; ` +
        `connect-src 'self' ${platform.vectors.base}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
    );
    expect(headers['x-content-type-options']).toBe('nosniff');
  });

  it("refuses a key that does not resolve, showing the API's code and message", async () => {
    await page.waitForSelector('#api-key');
    await page.type('#api-key', 'svc_live_doesnotresolve');
    await clickButton(page, 'Sign in');
    await waitForText(page, '[role=alert]', 'INVALID_API_KEY');
    await photograph('01-sign-in');
  });

  it('signs in with a key kept in sessionStorage only and shows the environment', async () => {
    await page.$eval('#api-key', (el) => {
      (el as unknown as PageElement).value = '';
    });
    // By keyboard: focus the field, type, Enter submits.
    await page.focus('#api-key');
    await page.keyboard.type(platform.owner.key);
    await page.keyboard.press('Enter');
    await waitForText(page, '[data-testid=environment]', 'live');
    const storage = await page.evaluate(() => {
      const w = globalThis as unknown as PageWindow;
      const keys = Array.from(
        { length: w.sessionStorage.length },
        (_, i) => w.sessionStorage.key(i) ?? '',
      );
      return {
        session: keys.map((k) => w.sessionStorage.getItem(k)),
        local: w.localStorage.length,
        url: w.location.href,
      };
    });
    expect(storage.session).toEqual([platform.owner.key]);
    expect(storage.local).toBe(0);
    expect(storage.url).not.toContain(platform.owner.key);
    // The keyboard's first stop is the skip link; then the navigation, in order.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(activeText)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(activeText)).toBe('Agents');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(activeText)).toBe('Deploy');
  });

  it('deploys examples/python-service by upload, .svcignore applied in the browser, until active', async () => {
    await open('#/deploy');
    await page.waitForSelector('#deploy-folder');
    await page.type('#deploy-agent', AGENT);
    const input = await page.$('#deploy-folder');
    await input!.uploadFile(project());
    await waitForText(page, '[data-testid=included]', 'main.py');
    const included = await page.$eval('[data-testid=included]', (el) => el.textContent);
    const excluded = await page.$eval('[data-testid=excluded]', (el) => el.textContent);
    expect(included).toContain('svc.yaml');
    expect(included).not.toContain('model.bin');
    expect(excluded).toContain('data/');
    expect(excluded).toContain('debug.log');
    await clickButton(page, 'Deploy', 'form');
    await waitForText(page, '[data-testid=deploy-status]', 'active', 240_000);
    // The upload's progress reached its end.
    const progress = await page.$eval('#upload-progress', (el) => {
      const bar = el as unknown as { value: number; max: number };
      return [bar.value, bar.max];
    });
    expect(progress[0]).toBeGreaterThan(0);
    expect(progress[0]).toBe(progress[1]);
    await photograph('02-deploy');
    // The server has the agent, created from svc.yaml, with an active version.
    const agent = await call<{ runtime: string; status: string }>(
      platform.server,
      'GET',
      `/api/v1/agents/${AGENT}`,
      {
        key: platform.owner.key,
      },
    );
    expect(agent.body.runtime).toBe('python3.11');
  });

  it('shows the interpreter error of a deployment that fails', async () => {
    const broken = join(platform.dir, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'svc.yaml'), 'runtime: python3.11\ntype: service\n');
    // It exports app (checked before the build), but does not import: the interpreter says why.
    writeFileSync(join(broken, 'main.py'), 'import module_that_is_not_there\n\napp = None\n');
    await page.$eval('#deploy-agent', (el) => {
      (el as unknown as PageElement).value = '';
    });
    await page.type('#deploy-agent', 'web-broken');
    const input = await page.$('#deploy-folder');
    await input!.uploadFile(broken);
    await waitForText(page, '[data-testid=included]', 'main.py');
    await clickButton(page, 'Deploy', 'form');
    await waitForText(page, '[data-testid=deploy-status]', 'failed', 240_000);
    await waitForText(page, '[data-testid=deploy-status]', 'module_that_is_not_there');
    await photograph('02-deploy-failed');
  });

  it('lists the agent with its status and last deployment, and opens its URL through the edge', async () => {
    await open('#/agents');
    await waitForText(page, `tr[data-agent=${AGENT}]`, 'active', 30_000);
    await waitForText(page, `tr[data-agent=${AGENT}]`, 'running', 60_000);
    await photograph('03-agents');
    await open(`#/agents/${AGENT}`);
    await page.waitForSelector('[data-testid=agent-url]', { timeout: 60_000 });
    const url = await page.$eval(
      '[data-testid=agent-url]',
      (a) => (a as unknown as PageElement).href,
    );
    expect(url).toMatch(/^http:\/\/web-py-[a-z0-9]{6}\.agents\.localtest:\d+\/$/);
    const tab = await browser.newPage();
    try {
      const res = await tab.goto(`${url}hi`);
      expect(res?.status()).toBe(200);
      expect(JSON.parse(await tab.$eval('body', (b) => b.textContent ?? ''))).toMatchObject({
        hello: 'from python',
        path: '/hi',
        agent: AGENT,
      });
    } finally {
      await tab.close();
    }
  });

  it('runs the agent with a payload and follows the log line it prints after the page opened', async () => {
    await page.waitForSelector('[data-testid=log-lines]');
    const marker = `dash-${randomBytes(4).toString('hex')}`;
    expect(await page.$eval('[data-testid=log-lines]', (el) => el.textContent)).not.toContain(
      marker,
    );
    await page.$eval('#run-payload', (el) => {
      (el as unknown as PageElement).value = '';
    });
    await page.type('#run-payload', JSON.stringify({ marker }));
    await clickButton(page, 'Run now');
    await waitForText(page, '[role=status]', 'accepted');
    await waitForText(page, '[data-testid=runs]', 'manual', 30_000);
    // The service prints the run's payload; the log panel, already following, shows it.
    await waitForText(page, '[data-testid=log-lines]', marker, 60_000);
    // Filtered to stdout, the panel shows only the service's own output.
    await page.click('[data-testid=logs] input[value=stdout]');
    await page.waitForFunction(() => {
      const { document } = globalThis as unknown as PageWindow;
      const lines = Array.from(document.querySelectorAll('[data-testid=log-lines] li'));
      return (
        lines.length > 0 && lines.every((li) => li.getAttribute('class')?.startsWith('log-stdout'))
      );
    });
    await waitForText(page, '[data-testid=log-lines]', marker);
    await page.click('[data-testid=logs] input[value=stdout]');
    await waitForText(page, '[data-testid=runs]', 'completed', 60_000);
    await photograph('04-agent');
  });

  it('sets a secret whose value is never shown again', async () => {
    const value = `s3cr3t-${randomBytes(6).toString('hex')}`;
    await page.type('#secret-key', 'API_TOKEN');
    await page.type('#secret-value', value);
    await page.type('#secret-description', 'token of the upstream API');
    await clickButton(page, 'Set secret');
    await waitForText(page, '[data-testid=secrets]', 'API_TOKEN');
    await waitForText(page, '[data-testid=secrets]', 'token of the upstream API');
    const afterSet = await page.evaluate(() => {
      const { document } = globalThis as unknown as PageWindow;
      return {
        html: document.documentElement.outerHTML,
        value: document.getElementById('secret-value')?.value,
      };
    });
    expect(afterSet.value).toBe('');
    expect(afterSet.html).not.toContain(value);
    await page.reload();
    await waitForText(page, '[data-testid=secrets]', 'API_TOKEN');
    expect(await page.content()).not.toContain(value);
  });

  it('stops and starts the agent, each after a confirmation', async () => {
    await clickConfirmed(page, 'Stop', '.actions');
    await waitForText(page, '[role=status]', 'Stop: paused');
    await waitForText(page, '[data-testid=agent-status]', 'paused', 60_000);
    await clickConfirmed(page, 'Start', '.actions');
    await waitForText(page, '[data-testid=agent-status]', 'running', 120_000);
  });

  it("archives the agent, shows the API's refusal to stop it then, and restores it", async () => {
    await clickConfirmed(page, 'Archive', '.actions');
    await waitForText(page, '[role=status]', 'Archive: archiving');
    await waitForText(page, '[data-testid=agent-status]', 'archived', 60_000);
    await clickConfirmed(page, 'Stop', '.actions');
    await waitForText(page, '[role=alert]', 'AGENT_STATE_CONFLICT');
    await waitForText(page, '[role=alert]', 'is archived; restore it first');
    await clickConfirmed(page, 'Restore', '.actions');
    await waitForText(page, '[data-testid=agent-status]', 'running', 120_000);
  });

  it('redeploys from an archive dropped on the page, then rolls back to the first version', async () => {
    const archive = join(platform.dir, 'web-py.tgz');
    execFileSync('tar', ['czf', archive, '-C', example, '.']);
    await open(`#/deploy/${AGENT}`);
    await page.waitForSelector('.drop');
    // A drop as the browser delivers one, with a file made from the archive's bytes.
    const bytes = readFileSync(archive).toString('base64');
    await page.evaluate(`(() => {
      const bytes = Uint8Array.from(atob(${JSON.stringify(bytes)}), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], 'web-py.tgz', { type: 'application/gzip' }));
      const zone = document.querySelector('.drop');
      for (const type of ['dragover', 'drop'])
        zone.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
    })()`);
    await waitForText(page, 'main', 'web-py.tgz, uploaded as it is');
    await clickButton(page, 'Deploy', 'form');
    await waitForText(page, '[data-testid=deploy-status]', 'Version 2: active', 240_000);
    await open(`#/agents/${AGENT}`);
    const v1 = '[data-testid=deployments] tr[data-version="1"]';
    await waitForText(page, v1, 'superseded');
    await clickConfirmed(page, 'Roll back', v1);
    await waitForText(page, '[data-testid=deployments] tr[data-version="3"]', 'active', 240_000);
    await waitForText(
      page,
      '[data-testid=deployments] tr[data-version="2"]',
      'rolled_back',
      60_000,
    );
  });

  it('browses a collection of 120 points over three pages of 50', async () => {
    await vectors('POST', '/api/v1/collections', {
      name: COLLECTION,
      vectors: { size: 4, distance: 'Cosine' },
    });
    const points = Array.from({ length: 120 }, (_, i) => ({
      id: i + 1,
      vector: [1, (i % 7) + 1, (i % 5) + 1, i / 10 + 1],
      payload: {
        n: i + 1,
        tag: i % 2 ? 'odd' : 'even',
        meta: { square: (i + 1) ** 2, labels: ['a', 'b'] },
      },
    }));
    await vectors('PUT', `/api/v1/collections/${COLLECTION}/points?wait=true`, { points });
    await open('#/collections');
    await waitForText(page, `tr[data-collection=${COLLECTION}]`, '120', 30_000);
    await waitForText(page, `tr[data-collection=${COLLECTION}]`, 'active');
    await photograph('05-collections');
    await open(`#/collections/${COLLECTION}`);
    await waitForText(page, '[data-testid=explorer-count]', '120 points');
    const seen = new Set<string>();
    for (const [pageNo, size] of [
      [1, 50],
      [2, 50],
      [3, 20],
    ] as const) {
      await waitForText(page, '[data-testid=page-number]', `Page ${pageNo}`);
      const ids = await shownPoints(`page-${pageNo}`);
      expect(ids.length).toBe(size);
      for (const id of ids) seen.add(id);
      if (pageNo === 1) await photograph('06-explorer');
      if (pageNo < 3) await clickButton(page, 'Next page');
    }
    expect(seen.size).toBe(120);
    expect(await page.$eval('.toolbar', (el) => el.textContent)).toContain('Page 3');
    const nextDisabled = await page.evaluate(
      () =>
        Array.from((globalThis as unknown as PageWindow).document.querySelectorAll('button')).find(
          (b) => b.textContent === 'Next page',
        )?.disabled,
    );
    expect(nextDisabled).toBe(true);
    // The payload is a tree: keys and values readable, nested objects as branches.
    expect(
      await page.$eval('[data-testid=points] tbody tr .tree', (el) => el.textContent),
    ).toContain('square');
  });

  it('queries the 50 nearest points to a point id', async () => {
    await page.type('#explorer-query', '7');
    await clickButton(page, 'Find nearest');
    await waitForText(page, '[data-testid=nearest-title]', '50 nearest to 7');
    expect((await shownPoints('nearest')).length).toBe(50);
    await photograph('07-nearest');
    // Browsing resumes on the page it left (the third), and goes back page by page.
    await clickButton(page, 'Back to browsing');
    await waitForText(page, '[data-testid=page-number]', 'Page 3');
    await clickButton(page, 'Previous page');
    await waitForText(page, '[data-testid=page-number]', 'Page 2');
    await clickButton(page, 'Previous page');
    await waitForText(page, '[data-testid=page-number]', 'Page 1');
  });

  it('deletes two ticked points of the current page and the count drops by two', async () => {
    const ids = (await shownPoints('page-1')).slice(0, 2);
    expect(ids.length).toBe(2);
    for (const id of ids) await page.click(`tr[data-point="${id}"] input[type=checkbox]`);
    await clickButton(page, 'Delete 2 ticked');
    await clickButton(page, 'Confirm delete 2 ticked');
    await waitForText(page, '[data-testid=explorer-count]', '118 points');
    const after = await shownPoints('page-1');
    expect(after.length).toBe(50);
    expect(after).not.toContain(ids[0]);
    expect(after).not.toContain(ids[1]);
    const count = await vectors<{ result: { count: number } }>(
      'POST',
      `/api/v1/collections/${COLLECTION}/points/count`,
      {
        exact: true,
      },
    );
    expect(count.result.count).toBe(118);
    await open('#/collections');
    await waitForText(page, `tr[data-collection=${COLLECTION}]`, '118', 30_000);
  });

  it("filters, finds the nearest to a pasted vector within the filter, and checks the schema's conformance", async () => {
    await vectors('PUT', `/api/v1/schema/${COLLECTION}`, {
      schema: { type: 'object', properties: { n: { type: 'integer', maximum: 100 } } },
      enforcement_mode: 'warn',
    });
    await open('#/collections');
    await open(`#/collections/${COLLECTION}`);
    const filter = { must: [{ key: 'tag', match: { value: 'odd' } }] };
    const odd = await vectors<{ result: { count: number } }>(
      'POST',
      `/api/v1/collections/${COLLECTION}/points/count`,
      { exact: true, filter },
    );
    // The explorer has loaded the collection (its unfiltered count) before the filter is typed:
    // typed into the form while it still renders, the text was lost and the filter applied empty.
    await waitForText(page, '[data-testid=explorer-count]', '118 points');
    await page.type('#explorer-filter', JSON.stringify(filter));
    await page.waitForFunction(
      (want: string) =>
        (globalThis as unknown as PageWindow).document.getElementById('explorer-filter')?.value ===
        want,
      { timeout: 10_000 },
      JSON.stringify(filter),
    );
    await clickButton(page, 'Apply filter');
    await waitForText(
      page,
      '[data-testid=explorer-count]',
      `${odd.result.count} points match the filter`,
    );
    await page.$eval('#explorer-query', (el) => {
      (el as unknown as PageElement).value = '';
    });
    await page.type('#explorer-query', '[1, 2, 3, 4]');
    await clickButton(page, 'Find nearest');
    await waitForText(page, '[data-testid=nearest-title]', '50 nearest to [1, 2, 3, 4]');
    await shownPoints('nearest');
    const payloads = await page.$$eval('[data-testid=points] tbody tr td > ul.tree', (els) =>
      els.map((el) => el.textContent ?? ''),
    );
    expect(payloads.length).toBe(50);
    for (const text of payloads) expect(text).toContain('"odd"');
    // 118 points are left; those numbered 101 to 120 break the schema's maximum of 100.
    await clickButton(page, 'Check conformance');
    await waitForText(page, '[data-testid=conformance]', '98 of 118 points conform');
    await waitForText(page, '[data-testid=conformance]', 'the whole collection was scanned');
    await waitForText(page, '[data-testid=conformance] table', 'n20');
    await photograph('07-explorer-schema');
  });

  it("changes a workspace's regions and follows the operation until it succeeds", async () => {
    const created = await call(platform.server, 'POST', '/api/v1/workspaces', {
      key: platform.owner.key,
      body: { name: 'dash-ws', regions: ['local'] },
    });
    expect(created.status).toBe(201);
    const job = await call(platform.server, 'POST', '/api/v1/agents', {
      key: platform.owner.key,
      body: { name: 'dash-job', agent_type: 'job', workspace_name: 'dash-ws' },
    });
    expect(job.status).toBe(201);
    await open('#/workspaces');
    const card = 'article[aria-labelledby="ws-dash-ws"]';
    await waitForText(page, card, 'dash-job');
    await page.click(`${card} input[value=local]`);
    await page.click(`${card} input[value=eu-west]`);
    await clickButton(page, 'Change regions', card);
    await waitForText(page, `${card} [role=status]`, 'local → eu-west');
    await waitForText(page, `${card} [role=status]`, 'succeeded', 60_000);
    await waitForText(page, `${card} [role=status]`, 'agent dash-job: done');
    await waitForText(page, card, 'Regions: eu-west');
    await photograph('08-workspaces');
  });

  it('deploys a scheduled job from an archive (the agent created from its svc.yaml), then pauses and resumes its schedule', async () => {
    const archive = join(platform.dir, 'tick.tgz');
    execFileSync('tar', [
      'czf',
      archive,
      '-C',
      fileURLToPath(new URL('../../examples/scheduled-job', import.meta.url)),
      '.',
    ]);
    await open('#/deploy/dash-tick');
    await page.waitForSelector('#deploy-archive');
    expect(await page.$eval('#deploy-agent', (el) => (el as unknown as PageElement).value)).toBe(
      'dash-tick',
    );
    const input = await page.$('#deploy-archive');
    await input!.uploadFile(archive);
    await waitForText(page, 'main', 'tick.tgz, uploaded as it is');
    await clickButton(page, 'Deploy', 'form');
    await waitForText(page, '[data-testid=deploy-status]', 'active', 240_000);
    // The agent was created from the archive's svc.yaml, read in the browser.
    const job = await call<{ agent_type: string }>(
      platform.server,
      'GET',
      '/api/v1/agents/dash-tick',
      {
        key: platform.owner.key,
      },
    );
    expect(job.body.agent_type).toBe('job');
    await open('#/agents/dash-tick');
    const schedule = '[data-testid=schedule]';
    await waitForText(page, schedule, '*/5 * * * *');
    await page.waitForSelector(`${schedule} [data-testid=next-run] time`);
    await clickButton(page, 'Pause schedule', schedule);
    await waitForText(page, `${schedule} [data-testid=next-run]`, 'paused', 30_000);
    await clickButton(page, 'Resume schedule', schedule);
    await page.waitForSelector(`${schedule} [data-testid=next-run] time`, { timeout: 30_000 });
  });

  it('shows usage, with no console error or CSP violation on any page', async () => {
    await open('#/usage');
    await page.waitForSelector('.chart svg', { timeout: 30_000 });
    // One bar per day of the last 14, against the plan's limits listed above it.
    expect(await page.$$eval('.chart rect.bar', (bars) => bars.length)).toBe(14);
    await waitForText(page, 'table', 'compute_mb_seconds');
    await photograph('09-usage');
    await page.setViewport({ width: 390, height: 800 });
    await open(`#/agents/${AGENT}`);
    await page.waitForSelector('[data-testid=agent-url]');
    await photograph('10-agent-narrow');
    expect(problems).toEqual([]);
  });

  it('deletes an agent after a confirmation', async () => {
    await open('#/agents/web-broken');
    await page.waitForSelector('[data-testid=agent-status]');
    await clickConfirmed(page, 'Delete', '.actions');
    await page.waitForFunction(
      () => (globalThis as unknown as PageWindow).location.hash === '#/agents',
    );
    await page.waitForSelector(`tr[data-agent=${AGENT}]`);
    expect(await page.$('tr[data-agent=web-broken]')).toBeNull();
    const gone = await call(platform.server, 'GET', '/api/v1/agents/web-broken', {
      key: platform.owner.key,
    });
    expect(gone.status).toBe(404);
  });

  it('signs out, forgetting the key', async () => {
    await clickButton(page, 'Sign out');
    await page.waitForSelector('#api-key');
    expect(
      await page.evaluate(() => (globalThis as unknown as PageWindow).sessionStorage.length),
    ).toBe(0);
  });

  it('showed every text of the pages it photographed with WCAG AA contrast', () => {
    expect(contrastProblems).toEqual([]);
  });
});

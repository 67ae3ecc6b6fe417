/**
 * Debian's chromium driven by puppeteer-core for the dashboard's tests:
 * headless, with agent addresses (`*.agents.localtest`) mapped to loopback
 * where the edge listens, and --no-sandbox when running as root (Chromium
 * refuses its sandbox then). Pages record console errors (a CSP violation is
 * one) and uncaught exceptions, and screenshots go to a git-ignored
 * directory for reviewers.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { DASHBOARD_AGENT_DOMAIN } from './dashboard-platform.js';

/** Where screenshots are saved (under .dev/, which git ignores). */
export const SCREENSHOT_DIR = fileURLToPath(
  new URL('../../.dev/screenshots/dashboard/', import.meta.url),
);

/** An element as the tests' page functions use it (the repository's types have no DOM). */
export interface PageElement {
  textContent: string | null;
  value: string;
  href: string;
  disabled: boolean;
  outerHTML: string;
  getAttribute(name: string): string | null;
  click(): void;
}

/**
 * The browser globals the tests' page functions use. Such a function runs in
 * the page: it reaches them as `(globalThis as unknown as PageWindow)`, a cast
 * that compiles to `globalThis`.
 */
export interface PageWindow {
  document: {
    querySelectorAll(selector: string): ArrayLike<PageElement>;
    getElementById(id: string): PageElement | null;
    documentElement: PageElement;
  };
  location: { hash: string; href: string };
  sessionStorage: {
    length: number;
    getItem(key: string): string | null;
    key(i: number): string | null;
  };
  localStorage: { length: number };
  /** Reports changes of the document: the tests' waits check again at each one. */
  MutationObserver: new (callback: () => void) => {
    observe(target: unknown, options: Record<string, boolean>): void;
    disconnect(): void;
  };
}

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The chromium binary (SVC_CHROMIUM_PATH, else Debian's), or an error saying how to install it. */
export function chromiumPath(): string {
  const found = [process.env.SVC_CHROMIUM_PATH, ...CANDIDATES].find((p) => p && existsSync(p));
  if (!found)
    throw new Error(
      'chromium is not installed: run node hack/sandbox-tools.mjs (apt-get install chromium)',
    );
  return found;
}

/** Launches headless chromium. */
export async function launchBrowser(): Promise<Browser> {
  const args = [
    `--host-resolver-rules=MAP *.${DASHBOARD_AGENT_DOMAIN} 127.0.0.1`,
    '--disable-dev-shm-usage',
  ];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return puppeteer.launch({ executablePath: chromiumPath(), headless: true, args });
}

/** Problems a page reported: console errors and uncaught exceptions. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    // An API's error answer is logged by Chromium as a failed load; the page shows those itself.
    const text = message.text();
    if (message.type() === 'error' && !text.startsWith('Failed to load resource'))
      problems.push(`console: ${text}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${String(err)}`));
  return problems;
}

/** Saves a full-page screenshot named `name`.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({
    path: join(SCREENSHOT_DIR, `${name}.png`) as `${string}.png`,
    fullPage: true,
  });
}

/** What lowContrast runs in the page: each element's own text against its opaque background. */
const CONTRAST_SCRIPT = String.raw`(() => {
  const parse = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return null;
    const [r = 0, g = 0, b = 0, a = 1] = m[1].split(',').map(Number);
    return { r, g, b, a };
  };
  const channel = (v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const luminance = (c) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  const backgroundOf = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) return c;
    }
    return { r: 255, g: 255, b: 255, a: 1 };
  };
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg') || el.closest(':disabled')) continue;
    const own = Array.from(el.childNodes)
      .filter((n) => n.nodeType === Node.TEXT_NODE)
      .map((n) => n.textContent || '')
      .join('')
      .trim();
    if (!own) continue;
    const rect = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (rect.width === 0 || rect.height === 0 || style.visibility === 'hidden') continue;
    const fg = parse(style.color);
    if (!fg) continue;
    const bg = backgroundOf(el);
    const shown = {
      r: fg.r * fg.a + bg.r * (1 - fg.a),
      g: fg.g * fg.a + bg.g * (1 - fg.a),
      b: fg.b * fg.a + bg.b * (1 - fg.a),
    };
    const [hi, lo] = [luminance(shown), luminance(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) {
      out.push({
        text: own.slice(0, 40),
        ratio: Math.round(ratio * 100) / 100,
        color: style.color,
        background: 'rgb(' + bg.r + ', ' + bg.g + ', ' + bg.b + ')',
      });
    }
  }
  return out;
})()`;

/** A text shown with less contrast than WCAG 2.1 AA asks (4.5:1, 3:1 for large text). */
export interface LowContrast {
  page: string;
  text: string;
  ratio: number;
  color: string;
  background: string;
}

/**
 * The texts of the page shown with less contrast than WCAG AA asks, as the
 * browser renders them: each element's own text in its computed colour
 * against the first opaque background behind it. Disabled controls are
 * exempt, as WCAG says; SVG text (painted with `fill`) is left out.
 */
export async function lowContrast(page: Page, name: string): Promise<LowContrast[]> {
  // Plain JavaScript, run in the page (this project's TypeScript has no DOM types).
  const found = (await page.evaluate(CONTRAST_SCRIPT)) as Array<Omit<LowContrast, 'page'>>;
  return found.map((f) => ({ page: name, ...f }));
}

/**
 * Resolves once an element matching `selector` has text containing `text`;
 * on a timeout, the error shows what those elements said instead.
 */
export async function waitForText(
  page: Page,
  selector: string,
  text: string,
  timeout = 30_000,
): Promise<void> {
  try {
    await page.waitForFunction(
      (sel: string, want: string) => {
        const { document, MutationObserver } = globalThis as unknown as PageWindow;
        const shown = () =>
          Array.from(document.querySelectorAll(sel)).some((el) =>
            (el.textContent ?? '').includes(want),
          );
        // Checked now and at each change of the document (nodes, attributes, text).
        return new Promise<true>((resolve) => {
          const observer = new MutationObserver(() => {
            if (!shown()) return;
            observer.disconnect();
            resolve(true);
          });
          observer.observe(document, {
            childList: true,
            subtree: true,
            attributes: true,
            characterData: true,
          });
          if (shown()) {
            observer.disconnect();
            resolve(true);
          }
        });
      },
      { timeout },
      selector,
      text,
    );
  } catch (err) {
    const seen = await page
      .$$eval(selector, (els) => els.map((el) => el.textContent ?? ''))
      .catch(() => []);
    throw new Error(
      `no "${text}" in ${selector} after ${timeout} ms; it says ${JSON.stringify(seen)}`,
      {
        cause: err,
      },
    );
  }
}

/**
 * Clicks the button whose text is exactly `label` (within `scope` when given),
 * waiting up to `timeoutMs` for it to be there and enabled: a page may still be
 * loading the data its buttons act on (a loaded machine made that visible).
 */
export async function clickButton(
  page: Page,
  label: string,
  scope = 'body',
  timeoutMs = 10_000,
): Promise<void> {
  try {
    await page.waitForFunction(
      (sel: string, want: string) => {
        const { document, MutationObserver } = globalThis as unknown as PageWindow;
        const clicked = () => {
          const buttons = Array.from(document.querySelectorAll(`${sel} button`));
          const button = buttons.find((b) => b.textContent?.trim() === want && !b.disabled);
          button?.click();
          return Boolean(button);
        };
        // Tried now and at each change of the document (nodes, attributes, text).
        return new Promise<true>((resolve) => {
          const observer = new MutationObserver(() => {
            if (!clicked()) return;
            observer.disconnect();
            resolve(true);
          });
          observer.observe(document, {
            childList: true,
            subtree: true,
            attributes: true,
            characterData: true,
          });
          if (clicked()) {
            observer.disconnect();
            resolve(true);
          }
        });
      },
      { timeout: timeoutMs },
      scope,
      label,
    );
  } catch (err) {
    throw new Error(`no enabled button "${label}" in ${scope} after ${timeoutMs} ms`, {
      cause: err,
    });
  }
}

/**
 * Clicks the action button `label` and then the confirmation the dashboard
 * asks for before it acts ("Confirm <label in lower case>"), within `scope`.
 */
export async function clickConfirmed(page: Page, label: string, scope = 'body'): Promise<void> {
  await clickButton(page, label, scope);
  await clickButton(page, `Confirm ${label.toLowerCase()}`, scope);
}

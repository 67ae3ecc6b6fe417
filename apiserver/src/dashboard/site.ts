/**
 * The web dashboard's static site, served by the control plane under
 * `/dashboard/` in front of its Koa app (a node:http lane: a request it does
 * not take goes to the API untouched). It serves the files `node
 * dashboard/build.mjs` wrote (never committed) and `/dashboard/config.json`,
 * which tells the browser where the vector plane is. The dashboard is a client
 * of the public REST APIs only; nothing here reads a key or an account.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dashboardHeaders, originOf } from './security-headers.js';

/** Where the dashboard is served on the control plane. */
export const DASHBOARD_PATH = '/dashboard/';

/** The build output of dashboard/build.mjs, relative to this file. */
export const DEFAULT_DASHBOARD_DIR = fileURLToPath(
  new URL('../../../dashboard/dist/', import.meta.url),
);

/** What the dashboard site serves. */
export interface DashboardSiteOptions {
  /** The directory of the built files (default {@link DEFAULT_DASHBOARD_DIR}). */
  dir?: string;
  /** The vector plane's public URL the browser calls, read per request (known once it listens). */
  vectorsUrl: () => string | null;
}

/** A node:http request listener. */
export type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.ico': 'image/x-icon',
};

/** `next` with the dashboard site in front of it. */
export function withDashboard(next: Listener, options: DashboardSiteOptions): Listener {
  const dir = options.dir ?? DEFAULT_DASHBOARD_DIR;
  return (req, res) => {
    const url = req.url ?? '/';
    // Every API request passes here: the cheap test first.
    if (!url.startsWith('/dashboard')) return next(req, res);
    const path = url.split('?')[0] ?? '/';
    if (path !== '/dashboard' && !path.startsWith(DASHBOARD_PATH)) return next(req, res);
    void serve(req, res, path, dir, options).catch(() => {
      if (!res.headersSent) plain(res, 500, 'Internal Server Error', options);
      else res.destroy();
    });
  };
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  dir: string,
  options: DashboardSiteOptions,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return plain(res, 405, 'Method Not Allowed', options);
  }
  if (path === '/dashboard') {
    res.writeHead(308, { location: DASHBOARD_PATH, ...headers(options) });
    res.end();
    return;
  }
  if (path === `${DASHBOARD_PATH}config.json`) {
    const body = JSON.stringify({ vectors_url: options.vectorsUrl() });
    res.writeHead(200, {
      'content-type': TYPES['.json'],
      'cache-control': 'no-store',
      ...headers(options),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  const file = resolveFile(dir, path.slice(DASHBOARD_PATH.length));
  if (!file) return plain(res, 404, 'Not Found', options);
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) {
    if (file.endsWith(`${sep}index.html`))
      return plain(res, 503, 'The dashboard is not built: run node dashboard/build.mjs', options);
    return plain(res, 404, 'Not Found', options);
  }
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': String(info.size),
    'cache-control': 'no-cache',
    ...headers(options),
  });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}

/**
 * The file under `dir` a path below `/dashboard/` names (`index.html` for the
 * root), or null for one that is not a plain relative path inside it.
 */
export function resolveFile(dir: string, relative: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(relative);
  } catch {
    return null;
  }
  if (decoded === '') decoded = 'index.html';
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  if (decoded.split('/').some((part) => part === '..' || part.startsWith('.'))) return null;
  const root = normalize(dir.endsWith(sep) ? dir : dir + sep);
  const full = normalize(join(root, decoded));
  return full.startsWith(root) ? full : null;
}

function headers(options: DashboardSiteOptions): Record<string, string> {
  return dashboardHeaders(originOf(options.vectorsUrl()));
}

function plain(res: ServerResponse, status: number, text: string, options: DashboardSiteOptions) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers(options) });
  res.end(text);
}

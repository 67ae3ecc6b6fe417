// @ts-check
/**
 * Loads a Node entry point the way its file type asks for and finds the HTTP `app` it exports.
 *
 * The runner decides as Node does, by the nearest package.json; where the code is unpacked makes
 * sure that is one of the agent's own or none (/app in a pod or the sandbox has nothing above it,
 * and the local driver's builds directory carries a package.json without "type" as a boundary),
 * so an agent's module type comes from its own files alone.
 *
 * CommonJS (`.cjs`, or `.js` outside a `"type": "module"` package) is required, so
 * `require.main === module` is false and a "start the server when run directly" block stays
 * quiet; ES modules are imported; TypeScript (`.ts`, `.mts`, `.cts`) goes through tsx, resolved
 * from the runner's own location so the app needs no tsx of its own. Under Bun, which runs this
 * file too, TypeScript is imported like any module: Bun compiles it.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** True under Bun (the `bun` runtime), which loads TypeScript itself: no tsx there. */
export const isBun = typeof process.versions.bun === 'string';

/** The entry point cannot be served; the message is written for the user, as is. */
export class EntrypointError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'EntrypointError';
  }
}

/** @typedef {'commonjs' | 'module' | 'typescript'} ModuleKind */
/** @typedef {Record<string, unknown>} ModuleNamespace */

const TYPESCRIPT_EXTENSIONS = new Set(['.ts', '.mts', '.cts']);

/**
 * The entry point's absolute path; EntrypointError when there is no such file.
 * @param {string} appDir absolute
 * @param {string} entrypoint relative to appDir
 */
export function entrypointPath(appDir, entrypoint) {
  const file = join(appDir, entrypoint);
  if (!existsSync(file) || !statSync(file).isFile()) {
    // Named relative to the code: where the code sits (/app, a build directory) is not the user's.
    throw new EntrypointError(`The entry point ${entrypoint} was not found in the agent's code.`);
  }
  return file;
}

/**
 * How Node would load the file: by extension, and for `.js` by the nearest package.json.
 * @param {string} file
 * @returns {ModuleKind}
 */
export function moduleKind(file) {
  const extension = extname(file);
  if (TYPESCRIPT_EXTENSIONS.has(extension)) return 'typescript';
  if (extension === '.mjs') return 'module';
  if (extension === '.cjs') return 'commonjs';
  return packageType(dirname(file));
}

/**
 * Node's rule: the nearest package.json decides, even one without a "type".
 * @param {string} dir
 * @returns {'commonjs' | 'module'}
 */
function packageType(dir) {
  for (let current = dir; ; current = dirname(current)) {
    const manifest = join(current, 'package.json');
    if (existsSync(manifest)) {
      try {
        return JSON.parse(readFileSync(manifest, 'utf8')).type === 'module' ? 'module' : 'commonjs';
      } catch {
        return 'commonjs';
      }
    }
    if (dirname(current) === current) return 'commonjs';
  }
}

/**
 * Loads the entry point and returns its exports as a namespace: an ES module's namespace, or
 * `{ app, default }` built from a CommonJS module's `module.exports`. Whatever the module's top
 * level throws propagates.
 * @param {string} file absolute
 * @returns {Promise<ModuleNamespace>}
 */
export async function loadEntrypoint(file) {
  const kind = moduleKind(file);
  if (kind === 'commonjs') {
    /** @type {unknown} */
    const exports = createRequire(file)(file);
    return { app: isObjectLike(exports) ? exports.app : undefined, default: exports };
  }
  const url = pathToFileURL(file).href;
  if (kind === 'module' || isBun) return import(url);
  const { tsImport } = await importTsx();
  return tsImport(url, import.meta.url);
}

/** @returns {Promise<typeof import('tsx/esm/api')>} */
async function importTsx() {
  try {
    // A bare specifier resolves from this file, i.e. from the platform's node_modules.
    return await import('tsx/esm/api');
  } catch (error) {
    throw new EntrypointError(
      `TypeScript entry points need tsx next to the runner, and it could not be loaded: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isObjectLike(value) {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/**
 * Places `app` may be, best first: a named export, then the default export's `app`, then the
 * default export itself, which only counts when it looks like an app (a default object of
 * helpers is not one). CommonJS output of an ES module (tsc, tsx, Babel) nests the default
 * export one level down, `module.exports.default`, so that level is searched too.
 * @param {ModuleNamespace} namespace
 * @returns {{ value: unknown, named: boolean }[]}
 */
function appCandidates(namespace) {
  const candidates = [{ value: namespace.app, named: true }];
  let fallback = namespace.default;
  for (let depth = 0; depth < 2 && isObjectLike(fallback); depth += 1) {
    candidates.push({ value: fallback.app, named: true }, { value: fallback, named: false });
    fallback = fallback.default;
  }
  return candidates;
}

/**
 * The exported `app`, awaited when it is a promise (an app built asynchronously); undefined when
 * the module exports none. A value exported under the name `app` is returned whatever it is, so
 * the caller can say why it cannot be served.
 * @param {ModuleNamespace} namespace
 * @returns {Promise<unknown>}
 */
export async function findApp(namespace) {
  for (const { value, named } of appCandidates(namespace)) {
    if (value === undefined || value === null) continue;
    if (named) return await value;
    if (appShape(value) !== undefined) return value;
  }
  return undefined;
}

/** @typedef {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => unknown} RequestListener */
/** @typedef {(req: import('node:http').IncomingMessage, socket: import('node:stream').Duplex, head: Buffer) => unknown} UpgradeListener */
/** @typedef {{ fetch(request: Request): Response | Promise<Response> }} FetchApp */
/** @typedef {{ callback(): RequestListener }} KoaApp */
/** @typedef {'koa' | 'fetch' | 'listener'} AppShape */

/**
 * Which kind of HTTP application `app` is, or undefined when it is none the runner can serve.
 * Koa is checked first (a Koa app is no function, but it is an object with `callback()`), then
 * fetch-style objects (Hono, itty-router, Bun-style `{ fetch }`), then plain functions, which
 * covers Node request listeners and Express apps.
 * @param {unknown} app
 * @returns {AppShape | undefined}
 */
export function appShape(app) {
  if (!isObjectLike(app)) return undefined;
  if (typeof app.callback === 'function') return 'koa';
  if (typeof app.fetch === 'function') return 'fetch';
  if (typeof app === 'function') return 'listener';
  return undefined;
}

/**
 * The app's own upgrade handler, by the runner's convention `upgrade(req, socket, head)` (or
 * `handleUpgrade` with the same arguments); undefined when the app takes no upgrades.
 * @param {unknown} app
 * @returns {UpgradeListener | undefined}
 */
export function upgradeListener(app) {
  if (!isObjectLike(app)) return undefined;
  for (const name of ['upgrade', 'handleUpgrade']) {
    const method = app[name];
    if (typeof method === 'function') {
      return (req, socket, head) => method.call(app, req, socket, head);
    }
  }
  return undefined;
}

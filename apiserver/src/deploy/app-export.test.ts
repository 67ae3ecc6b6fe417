import { describe, expect, it } from '@jest/globals';
import { RUNTIMES } from '../../../crds/src/index.js';
import { checkAppExport, scriptModuleType } from './app-export.js';

const lines = (...source: string[]) => source.join('\n');

describe('checkAppExport for Python', () => {
  it.each([
    ['an assignment', 'from fastapi import FastAPI\n\napp = FastAPI()\n'],
    ['an assignment without spaces', 'app=make()'],
    ['an annotated assignment', 'app: FastAPI = FastAPI()'],
    ['a function', 'def app(scope, receive, send):\n    ...'],
    ['an async function', 'async def app(scope, receive, send):\n    ...'],
    ['a decorated function', '@wrap\nasync def app(scope, receive, send):\n    pass'],
    ['a class', 'class app:\n    pass'],
    ['a subclass', 'class app(Starlette):\n    pass'],
    ['a from-import', 'from server import app'],
    ['a relative from-import', 'from .server import app'],
    ['a from-import among others', 'from server import make, app, routes'],
    ['a parenthesised from-import', 'from server import (\n    make,\n    app,\n)'],
    ['a continued from-import', 'from server import make, \\\n    app'],
    ['a renamed from-import', 'from server import application as app'],
    ['a module imported as app', 'import server.asgi as app'],
    ['an app after a docstring', '"""Entry point.\n\napp is defined below."""\napp = build()'],
  ])('accepts %s', (_form, source) => {
    expect(checkAppExport('python3.12', source)).toEqual({ ok: true });
  });

  it.each([
    ['no app at all', 'from fastapi import FastAPI\n\napplication = FastAPI()\n'],
    ['an indented app', 'if __name__ == "__main__":\n    app = FastAPI()'],
    ['an app inside a function', 'def build():\n    app = FastAPI()\n    return app'],
    ['a commented-out app', '# app = FastAPI()\nhandler = FastAPI()'],
    ['an app in a docstring', '"""\napp = FastAPI()\n"""\nhandler = 1'],
    ['an app in a string', "text = 'x'\nmessage = '''\napp = 1\n'''"],
    ['a name that starts with app', 'apple = FastAPI()\napp_factory = make'],
    ['a comparison', 'app == other'],
    ['an annotation without a value', 'app: FastAPI'],
    ['an attribute assignment', 'app.state = {}'],
    ['an app imported under another name', 'from server import app as web'],
    ['a module named app', 'import app'],
    ['a star import', 'from server import *'],
  ])('rejects %s', (_form, source) => {
    const result = checkAppExport('python3.11', source);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain('The entry point must export `app`');
    expect(!result.ok && result.message).toContain('`from module import app`');
  });

  it('checks every Python runtime', () => {
    for (const runtime of ['python3.11', 'python3.12', 'python3.13'] as const) {
      expect(checkAppExport(runtime, 'app = 1')).toEqual({ ok: true });
      expect(checkAppExport(runtime, 'web = 1').ok).toBe(false);
    }
  });
});

describe('checkAppExport for Node and Bun', () => {
  it.each([
    ['module.exports = { app }', 'const app = express();\nmodule.exports = { app };'],
    ['module.exports = { app: ... }', 'module.exports = { app: createApp({ port: 1 }) };'],
    ['app among other keys', 'module.exports = {\n  handler,\n  app,\n  other: 1,\n};'],
    ['a quoted app key', "module.exports = { 'app': server };"],
    ['an app method', 'module.exports = { app(req, res) { res.end(); } };'],
    ['module.exports.app =', 'module.exports.app = express();'],
    ['exports.app =', 'exports.app = express();'],
    ['a CommonJS default export', 'const app = express();\nmodule.exports = app;'],
    ['export default', 'export default { fetch() { return new Response("ok"); } };'],
    ['export const', 'export const app = new Hono();'],
    ['export let', 'export let app = new Hono();'],
    ['a typed export const', 'export const app: Express = express();'],
    ['export function', 'export function app(req, res) {}'],
    ['export async function', 'export async function app(req) {}'],
    ['export class', 'export class app {}'],
    ['export { app }', 'const app = new Hono();\nexport { app };'],
    ['export { x as app }', 'const server = new Hono();\nexport { helper, server as app };'],
    ['export { x as default }', 'export { server as default };'],
    ['a re-export', "export { app } from './server.js';"],
    ['TypeScript export =', 'export = app;'],
  ])('accepts %s', (_form, source) => {
    expect(checkAppExport('node22', source)).toEqual({ ok: true });
  });

  it.each([
    ['no export', 'const app = express();\napp.listen(8080);'],
    ['an object without app', 'module.exports = { handler, server: app };'],
    ['app only inside a nested value', 'module.exports = { handler: wrap(a, app, b), x: [app] };'],
    ['a key that starts with app', 'module.exports = { apple, application: 1 };'],
    ['a line comment', '// module.exports = { app };\nconst app = 1;'],
    ['a trailing line comment', 'const app = 1; // export default app'],
    ['a block comment', '/*\nexport default app;\nexport const app = 1;\n*/\nconst app = 1;'],
    ['a similar name', 'export const application = express();\nexports.apps = [];'],
    ['a type-only export', 'type app = {};\nexport { type app };'],
    ['a comparison', 'if (exports.app == null) start();'],
  ])('rejects %s', (_form, source) => {
    const result = checkAppExport('node20', source);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain('The entry point must export `app`');
    expect(!result.ok && result.message).toContain('`module.exports = { app }`');
  });

  it('does not read a comment opener inside a string as a comment', () => {
    const source = lines(
      "app.get('/api/*', handler);",
      "const url = 'http://example.test/x';",
      'export default app;',
      '/* trailing */',
    );
    expect(checkAppExport('node22', source)).toEqual({ ok: true });
  });

  it('checks every Node and Bun runtime, JavaScript and TypeScript alike', () => {
    for (const runtime of ['node20', 'node22', 'node20-ts', 'node22-ts', 'bun'] as const) {
      expect(checkAppExport(runtime, 'export const app = new Hono();')).toEqual({ ok: true });
      expect(checkAppExport(runtime, 'const app = new Hono();').ok).toBe(false);
    }
  });
});

describe('scriptModuleType: from the agent files alone', () => {
  const manifests = (entries: Record<string, string | null>) => new Map(Object.entries(entries));

  it('is decided by the extension, then by the nearest package.json in the archive', () => {
    const none = manifests({});
    expect(scriptModuleType('index.mjs', none).type).toBe('module');
    expect(
      scriptModuleType('index.cjs', manifests({ 'package.json': '{"type":"module"}' })),
    ).toEqual({ type: 'commonjs', because: 'the .cjs extension' });
    expect(
      scriptModuleType('index.js', manifests({ 'package.json': '{"type":"module"}' })),
    ).toEqual({ type: 'module', because: 'package.json has "type": "module"' });
    const nested = manifests({
      'package.json': '{"type":"module"}',
      'src/package.json': '{"type":"commonjs"}',
    });
    expect(scriptModuleType('src/server/index.js', nested)).toEqual({
      type: 'commonjs',
      because: 'src/package.json has "type": "commonjs"',
    });
  });

  it('leaves it to Node when nothing in the archive decides: no package.json, none with a type, or one unread', () => {
    expect(scriptModuleType('index.js', manifests({})).type).toBe('detect');
    expect(scriptModuleType('index.js', manifests({ 'package.json': '{"name":"x"}' })).type).toBe(
      'detect',
    );
    expect(scriptModuleType('index.js', manifests({ 'package.json': null })).type).toBe('detect');
    // A package.json beside other code, not above the entry point, does not count.
    expect(
      scriptModuleType('index.js', manifests({ 'tools/package.json': '{"type":"module"}' })).type,
    ).toBe('detect');
  });
});

describe('checkAppExport with the module type of the agent files', () => {
  const esModule = { type: 'module' as const, because: 'package.json has "type": "module"' };
  const commonJs = { type: 'commonjs' as const, because: 'the .cjs extension' };

  it('fails CommonJS exports in an ES module, saying why, on the Node runtimes', () => {
    const check = checkAppExport('node22', 'module.exports = { app };', esModule, 'index.js');
    expect(check).toEqual({
      ok: false,
      message:
        'index.js is loaded as an ES module (package.json has "type": "module"), where module.exports and exports are not defined. Export app with `export const app = ...` or `export default app`, or name the file .cjs.',
    });
    expect(checkAppExport('node20', 'exports.app = handler;', esModule).ok).toBe(false);
    expect(checkAppExport('node22', 'export default app;', esModule)).toEqual({ ok: true });
  });

  it('fails ES module exports in CommonJS, saying why', () => {
    const check = checkAppExport('node22', 'export const app = handler;', commonJs, 'index.cjs');
    expect(check).toEqual({
      ok: false,
      message:
        'index.cjs is loaded as CommonJS (the .cjs extension), where export is a syntax error. Export app with `module.exports = { app }`, or name the file .mjs.',
    });
    expect(checkAppExport('node22', 'module.exports = { app };', commonJs)).toEqual({ ok: true });
  });

  it('accepts either form when nothing decides, and on TypeScript runtimes and Bun', () => {
    const detect = { type: 'detect' as const, because: 'no package.json' };
    expect(checkAppExport('node22', 'module.exports = { app };', detect)).toEqual({ ok: true });
    expect(checkAppExport('node22', 'export default app;', detect)).toEqual({ ok: true });
    for (const runtime of ['node22-ts', 'bun'] as const)
      expect(checkAppExport(runtime, 'module.exports = { app };', esModule)).toEqual({ ok: true });
  });
});

describe('checkAppExport for dockerfile', () => {
  it('accepts anything, since the container is the caller’s', () => {
    expect(checkAppExport('dockerfile', '')).toEqual({ ok: true });
  });

  it('covers every runtime of the contract', () => {
    for (const runtime of RUNTIMES) {
      const expected = runtime === 'dockerfile';
      expect(checkAppExport(runtime, 'nothing here').ok).toBe(expected);
    }
  });
});

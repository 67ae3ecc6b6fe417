/**
 * The static check, before the build, that a service's entry point exports
 * `app` (service runtime contract). It reads the source text only; the
 * runtime checks again at startup with the real interpreter, so this check
 * leans towards accepting: it must never fail a deploy that would have worked
 * because of a form it does not know, only catch the entry point that plainly
 * defines no `app`.
 */
import type { Runtime } from '../../../crds/src/index.js';

/** The outcome of {@link checkAppExport}. */
export type AppExportCheck = { ok: true } | { ok: false; message: string };

/**
 * How Node will load a JavaScript entry point, decided from the agent's own
 * files (its extension, the nearest package.json in the archive), never from
 * where the code is unpacked: `module` or `commonjs` when that decides it,
 * `detect` when nothing does (no package.json, or one without "type"), where
 * Node takes either syntax.
 */
export interface ScriptModuleType {
  type: 'module' | 'commonjs' | 'detect';
  /** What decided it, for messages: `package.json has "type": "module"`, `the .mjs extension`. */
  because: string;
}

/**
 * The {@link ScriptModuleType} of `entry`, from `manifests`: the archive's
 * package.json files by path, with null for one too large to have been read.
 */
export function scriptModuleType(
  entry: string,
  manifests: ReadonlyMap<string, string | null>,
): ScriptModuleType {
  if (entry.endsWith('.mjs')) return { type: 'module', because: 'the .mjs extension' };
  if (entry.endsWith('.cjs')) return { type: 'commonjs', because: 'the .cjs extension' };
  if (!entry.endsWith('.js')) return { type: 'detect', because: 'its extension' };
  const dirs = entry.split('/').slice(0, -1);
  for (let depth = dirs.length; depth >= 0; depth--) {
    const path = [...dirs.slice(0, depth), 'package.json'].join('/');
    if (!manifests.has(path)) continue;
    let type: unknown;
    try {
      type = (JSON.parse(manifests.get(path) ?? '') as { type?: unknown }).type;
    } catch {
      return { type: 'detect', because: `${path} could not be read` };
    }
    const because = `${path} has "type": ${JSON.stringify(type)}`;
    if (type === 'module') return { type: 'module', because };
    if (type === 'commonjs') return { type: 'commonjs', because };
    return { type: 'detect', because: `${path} has no "type"` };
  }
  return { type: 'detect', because: 'no package.json' };
}

const PYTHON_MISSING =
  'The entry point must export `app`, an ASGI application, at module level (column 0). ' +
  'Accepted forms: `app = ...`, `app: Type = ...`, `def app(...)`, `async def app(...)`, ' +
  '`class app`, `from module import app`, `from module import name as app`, ' +
  '`import module as app`.';

const JS_MISSING =
  'The entry point must export `app`, an HTTP application object. Accepted forms: ' +
  '`module.exports = { app }`, `module.exports = { app: ... }`, `module.exports.app = ...`, ' +
  '`exports.app = ...`, a default export (`export default ...` or `module.exports = ...`), ' +
  '`export const|let|var app`, `export function app`, `export class app`, `export { app }`, ' +
  '`export { name as app }`.';

/**
 * Checks that the entry point `source` of a service on `runtime` exports
 * `app`. Call it for `service` agents only: a `job` exports nothing. Always ok
 * for runtime `dockerfile`, where the container is the caller's. Commented-out
 * code does not count. On `node20`/`node22`, `moduleType` (from
 * {@link scriptModuleType}) says which of the CommonJS and ES module forms
 * can export at all: `module.exports` is not defined in an ES module, and
 * `export` is a syntax error in CommonJS. TypeScript runtimes and Bun accept
 * both.
 */
export function checkAppExport(
  runtime: Runtime,
  source: string,
  moduleType: ScriptModuleType = { type: 'detect', because: 'unknown' },
  entry = 'The entry point',
): AppExportCheck {
  if (runtime === 'dockerfile') return { ok: true };
  if (runtime.startsWith('python')) {
    return pythonExportsApp(source) ? { ok: true } : { ok: false, message: PYTHON_MISSING };
  }
  const forms = scriptExportForms(source);
  const plainNode = runtime === 'node20' || runtime === 'node22';
  if (plainNode && moduleType.type === 'module' && !forms.esm && forms.commonjs) {
    return {
      ok: false,
      message:
        `${entry} is loaded as an ES module (${moduleType.because}), where module.exports and exports are not defined. ` +
        'Export app with `export const app = ...` or `export default app`, or name the file .cjs.',
    };
  }
  if (plainNode && moduleType.type === 'commonjs' && forms.esm && !forms.commonjs) {
    return {
      ok: false,
      message:
        `${entry} is loaded as CommonJS (${moduleType.because}), where export is a syntax error. ` +
        'Export app with `module.exports = { app }`, or name the file .mjs.',
    };
  }
  return forms.esm || forms.commonjs ? { ok: true } : { ok: false, message: JS_MISSING };
}

// ---- Python -------------------------------------------------------------

const PY_ASSIGNMENT = /^app\s*(?::[^=]*)?=(?!=)/;
const PY_DEF = /^(?:async\s+)?def\s+app\s*\(/;
const PY_CLASS = /^class\s+app\b/;
const PY_FROM_IMPORT = /^from\s+[\w.]+\s+import\s+(.+)$/s;
const PY_IMPORT = /^import\s+(.+)$/s;

function pythonExportsApp(source: string): boolean {
  for (const line of pythonStatements(stripPython(source))) {
    // Indented statements sit inside a block (`if __name__ == ...`, a function);
    // only module-level names are importable.
    if (/^\s/.test(line)) continue;
    if (PY_ASSIGNMENT.test(line) || PY_DEF.test(line) || PY_CLASS.test(line)) return true;
    const from = PY_FROM_IMPORT.exec(line);
    if (from && importedNames(from[1] as string).includes('app')) return true;
    const plain = PY_IMPORT.exec(line);
    if (plain && importedNames(plain[1] as string, true).includes('app')) return true;
  }
  return false;
}

/**
 * The names an import binds: `a, b as c` gives a and c; with `aliasesOnly`
 * (plain `import x.y as z`), only the aliases, since `import app` binds a
 * module, not an application.
 */
function importedNames(list: string, aliasesOnly = false): string[] {
  return list
    .replace(/[()]/g, ' ')
    .split(',')
    .map((item) => /^\s*([\w.]+)(?:\s+as\s+(\w+))?\s*$/.exec(item))
    .flatMap((m) => (m ? [m[2] ?? (aliasesOnly ? '' : (m[1] as string))] : []));
}

/** Removes comments and blanks the inside of string literals, keeping line breaks. */
function stripPython(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (c === '#') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '"' || c === "'") {
      const quote = source.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      out += quote;
      i += quote.length;
      while (i < source.length && !source.startsWith(quote, i)) {
        if (quote.length === 1 && source[i] === '\n') break;
        const step = source[i] === '\\' ? 2 : 1;
        out += source.slice(i, i + step).replace(/[^\n]/g, ' ');
        i += step;
      }
      if (source.startsWith(quote, i)) {
        out += quote;
        i += quote.length;
      }
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Splits stripped source into logical lines: brackets and `\` continue a line. */
function pythonStatements(code: string): string[] {
  const statements: string[] = [];
  let current = '';
  let depth = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i] as string;
    if (c === '\\' && code[i + 1] === '\n') {
      current += ' ';
      i++;
    } else if (c === '\n' && depth === 0) {
      statements.push(current);
      current = '';
    } else {
      if ('([{'.includes(c)) depth++;
      if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
      current += c === '\n' ? ' ' : c;
    }
  }
  statements.push(current);
  return statements;
}

// ---- JavaScript and TypeScript (node*, bun) --------------------------------

const ESM_FORMS = [
  /\bexport\s+default\b/,
  /\bexport\s+(?:declare\s+)?(?:const|let|var)\s+app\b/,
  /\bexport\s+(?:async\s+)?function\s*\*?\s*app\s*[(<]/,
  /\bexport\s+(?:abstract\s+)?class\s+app\b/,
];
const COMMONJS_FORMS = [
  // TypeScript's CommonJS default export.
  /\bexport\s*=(?!=)/,
  // `module.exports.app =` and `exports.app =`.
  /\bexports\s*\.\s*app\s*=(?!=)/,
];

/** Which kinds of `app` export the source has: ES module forms, CommonJS forms. */
function scriptExportForms(source: string): { esm: boolean; commonjs: boolean } {
  const code = stripScriptComments(source);
  let esm = ESM_FORMS.some((form) => form.test(code));
  let commonjs = COMMONJS_FORMS.some((form) => form.test(code));

  for (const m of code.matchAll(/\bexport\s*\{([^}]*)\}/g)) {
    if (exportList(m[1] as string).some((name) => name === 'app' || name === 'default')) {
      esm = true;
    }
  }

  for (const m of code.matchAll(/\bmodule\s*\.\s*exports\s*=(?!=)\s*/g)) {
    const start = (m.index ?? 0) + m[0].length;
    // `module.exports = app` (or any non-object value) is the module's default
    // export when the runtime imports it.
    if (code[start] !== '{' || objectHasKey(code, start, 'app')) commonjs = true;
  }
  return { esm, commonjs };
}

/** Exported names of an `export { a, b as c, type T }` list (type-only entries left out). */
function exportList(list: string): string[] {
  return list
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '' && !/^type\s/.test(item))
    .map((item) => item.split(/\s+as\s+/).pop() as string);
}

/** Whether the object literal opening at `code[open]` has a top-level key (or shorthand) `key`. */
function objectHasKey(code: string, open: number, key: string): boolean {
  let depth = 0;
  let topLevel = '';
  for (let i = open; i < code.length; i++) {
    const c = code[i] as string;
    if ('{[('.includes(c)) depth++;
    if ('}])'.includes(c)) depth--;
    if (depth === 0) break;
    // Only characters of the object itself, not of nested values.
    if (depth === 1 && !'{[()]}'.includes(c)) topLevel += c;
  }
  const property = new RegExp(`(?:^|,)\\s*(?:async\\s+)?(['"]?)${key}\\1\\s*(?:[,:]|$)`);
  return property.test(topLevel);
}

/**
 * Removes `/* ... *\/` and `//` comments, leaving string literals as they are
 * so that `'/*'` or a URL inside a string does not start a comment.
 */
function stripScriptComments(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === '"' || c === "'" || c === '`') {
      const start = i++;
      while (i < source.length && source[i] !== c) {
        // A quote or apostrophe string cannot span lines; a template can.
        if (c !== '`' && source[i] === '\n') break;
        i += source[i] === '\\' ? 2 : 1;
      }
      if (source[i] === c) i++;
      out += source.slice(start, i);
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

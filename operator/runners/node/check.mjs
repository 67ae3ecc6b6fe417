// @ts-check
/**
 * The build-time check of an entry point (`runner.mjs check`): it must compile, or the deploy
 * fails with the parser's message, file and line, before any run or request loads it. Nothing
 * runs and nothing is written. JavaScript is parsed by V8 as Node would load it (CommonJS
 * wrapped as a function, else as an ES module, through `node --check`); TypeScript by esbuild,
 * which tsx compiles it with; under Bun, by Bun's own transpiler.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { extname, isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileFunction } from 'node:vm';
import { isBun, moduleKind } from './load.mjs';

/**
 * `file` as the user knows it: relative to the agent's code (the working directory, /app in a
 * pod or a sandbox, a build directory on a host). A file outside the code keeps its name.
 * @param {string} file a path or a file: URL
 */
export function codePath(file) {
  const path = file.startsWith('file://') ? fileURLToPath(file) : file;
  const inside = relative(process.cwd(), path);
  return isAbsolute(path) && inside && !inside.startsWith('..') && !isAbsolute(inside)
    ? inside
    : path;
}

/**
 * `Type: message (file, line N)`, the form the deploy's reason takes.
 * @param {string} type
 * @param {string} message
 * @param {string} file
 * @param {number} line
 */
export function located(type, message, file, line) {
  return `${type}: ${message} (${codePath(file)}, line ${line})`;
}

/** Parameters of Node's CommonJS module wrapper. */
const COMMONJS_PARAMETERS = ['exports', 'require', 'module', '__filename', '__dirname'];

/** Messages V8 gives CommonJS code that is ES module syntax, which Node then loads as such. */
const MODULE_SYNTAX =
  /Cannot use import statement outside a module|Unexpected token 'export'|Cannot use 'import\.meta' outside a module|await is only valid in async functions and the top level bodies of modules/;

/**
 * Why `file` does not compile, as one line; null when it does.
 * @param {string} file absolute
 * @returns {Promise<string | null>}
 */
export async function syntaxProblem(file) {
  const source = readFileSync(file, 'utf8');
  const extension = extname(file);
  if (isBun) return bunProblem(file, source, extension);
  const kind = moduleKind(file);
  if (kind === 'typescript') return esbuildProblem(file, source, extension);
  if (kind === 'commonjs') {
    try {
      compileFunction(source, COMMONJS_PARAMETERS, { filename: file });
      return null;
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      // Without a "type" to say otherwise, Node loads ES module syntax as an ES module.
      if (!MODULE_SYNTAX.test(error.message)) return v8Problem(error, file);
    }
  }
  return moduleProblem(file, source);
}

/**
 * A SyntaxError V8 raised compiling `file`: the line is the stack header's `file:N`.
 * @param {SyntaxError} error
 * @param {string} file
 */
function v8Problem(error, file) {
  const line = /:(\d+)\n/.exec(error.stack ?? '')?.[1];
  return line
    ? located('SyntaxError', error.message, file, Number(line))
    : `SyntaxError: ${error.message}`;
}

/**
 * An ES module parsed by the running Node itself (`--check` of the source on stdin as a module).
 * @param {string} file
 * @param {string} source
 */
function moduleProblem(file, source) {
  const result = spawnSync(process.execPath, ['--input-type=module', '--check'], {
    input: source,
    encoding: 'utf8',
  });
  if (result.status === 0) return null;
  const stderr = result.stderr ?? '';
  const line = /^\[stdin\]:(\d+)$/m.exec(stderr)?.[1];
  const error = /^(\w*Error): (.*)$/m.exec(stderr);
  if (!error) return `${codePath(file)} could not be checked: ${stderr.trim().split('\n')[0]}`;
  const [, type = 'SyntaxError', message = ''] = error;
  return line ? located(type, message, file, Number(line)) : `${type}: ${message}`;
}

/**
 * TypeScript through esbuild, the compiler tsx runs it with.
 * @param {string} file
 * @param {string} source
 * @param {string} extension
 */
async function esbuildProblem(file, source, extension) {
  /** @type {typeof import('esbuild')} */
  let esbuild;
  try {
    // Resolved from the runner's location, beside tsx, as the loader resolves tsx.
    esbuild = await import('esbuild');
  } catch {
    return null; // No compiler to check with: the runtime says it at startup.
  }
  try {
    esbuild.transformSync(source, {
      loader: extension === '.tsx' ? 'tsx' : 'ts',
      sourcefile: file,
    });
    return null;
  } catch (error) {
    const first =
      /** @type {{ errors?: Array<{ text: string, location?: { line: number } | null }> }} */ (
        error
      ).errors?.[0];
    if (!first) throw error;
    return first.location
      ? located('SyntaxError', first.text, file, first.location.line)
      : `SyntaxError: ${first.text}`;
  }
}

/**
 * Bun's transpiler, which parses JavaScript and TypeScript alike.
 * @param {string} file
 * @param {string} source
 * @param {string} extension
 */
function bunProblem(file, source, extension) {
  const loader = { '.tsx': 'tsx', '.jsx': 'jsx', '.ts': 'ts', '.mts': 'ts', '.cts': 'ts' }[
    extension
  ];
  /** @type {{ Bun: { Transpiler: new (options: object) => { transformSync(code: string): string } } }} */
  const { Bun } = /** @type {any} */ (globalThis);
  try {
    new Bun.Transpiler({ loader: loader ?? 'js' }).transformSync(source);
    return null;
  } catch (error) {
    const message = /** @type {{ message?: string, position?: { line?: number } | null }} */ (
      error
    );
    const line = message.position?.line;
    return line
      ? located('SyntaxError', message.message ?? String(error), file, line)
      : `SyntaxError: ${message.message ?? String(error)}`;
  }
}

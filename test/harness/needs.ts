/**
 * Which of the selected integration test files use the harness's shared components (etcd,
 * kube-apiserver, kube-controller-manager, FerretDB), so that a run of files that do not (the
 * engine's, the runners', a platform that boots its own) starts none of them. A file uses them
 * when its relative imports, followed through every file they reach, arrive at
 * `test/harness/env.ts`, `regions.ts` or `state.ts`, the only ways in to those components'
 * addresses.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The harness modules through which a test reaches the shared components. */
const GATEWAYS = ['env.ts', 'regions.ts', 'state.ts'].map((f) => join(import.meta.dirname, f));

/** Relative import specifiers of one TypeScript source (static and dynamic imports, re-exports). */
export function relativeImports(source: string): string[] {
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const match of source.matchAll(pattern)) if (match[1]) found.push(match[1]);
  return found;
}

/** The file a relative specifier names: `./x.js` is `./x.ts` in these sources. */
function resolveImport(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base];
  return candidates.find((c) => existsSync(c));
}

/** True when `file`, through its relative imports, reaches one of the harness's gateways. */
export function usesSharedComponents(file: string, seen = new Set<string>()): boolean {
  if (GATEWAYS.includes(file)) return true;
  if (seen.has(file) || file.includes('/node_modules/')) return false;
  seen.add(file);
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  return relativeImports(source).some((specifier) => {
    const target = resolveImport(file, specifier);
    return target !== undefined && usesSharedComponents(target, seen);
  });
}

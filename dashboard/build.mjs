#!/usr/bin/env node
// Builds the web dashboard (dashboard/src, Preact + TypeScript) into dashboard/dist/ with esbuild:
// one minified ES module (app.js), the stylesheet and index.html. The output is never committed
// (dist/ is ignored); hack/ensure.mjs runs this before `npm start` and `npm test`, and the
// control plane serves the result under /dashboard/. Importable (buildDashboard()); the
// browser tests run with a directory of their own: `node dashboard/build.mjs <outdir>`.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Writes dashboard/dist/ (or `outdir`) from dashboard/src/. */
export async function buildDashboard(outdir = join(here, 'dist')) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: [join(here, 'src', 'main.tsx')],
    outfile: join(outdir, 'app.js'),
    bundle: true,
    format: 'esm',
    target: ['es2022'],
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: true,
    legalComments: 'none',
    logLevel: 'warning',
    tsconfig: join(here, 'tsconfig.json'),
  });
  copyFileSync(join(here, 'src', 'index.html'), join(outdir, 'index.html'));
  copyFileSync(join(here, 'src', 'style.css'), join(outdir, 'style.css'));
  return outdir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // An output directory may be named (the browser tests build into a temporary one).
  const out = await buildDashboard(process.argv[2] ?? undefined);
  console.log(`dashboard: built into ${out}`);
}

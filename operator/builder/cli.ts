/**
 * The builder of the cluster's build Jobs (the image `builder`); agent pods'
 * runners fetch the built artifact themselves (operator/runners/.../fetch):
 *
 *   unpack --dest DIR                   fetch the code archive ($SVC_ARCHIVE_URL) into DIR
 *   build --source DIR --runtime RT [--entrypoint FILE]
 *                                       install DIR's dependencies, compile-check the entry
 *                                       point, pack DIR, PUT it to $SVC_ARTIFACT_URL
 *
 * The URLs carry their capability tokens. `unpack` holds the code archive to
 * the limits in $SVC_ARCHIVE_LIMITS (the deployment's `archiveLimits` as JSON),
 * or to the fallback limits when it is unset. A failure prints the tool's own
 * words, with paths relative to the code, which the Job's failure message
 * carries to the deployment.
 */
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import {
  FALLBACK_ARCHIVE_LIMITS,
  RUNTIMES,
  type ArchiveLimits,
  type Runtime,
} from '../../crds/src/index.js';
import {
  checkEntrypoint,
  directToolRunner,
  fetchAndUnpack,
  installDependencies,
  relativeToCode,
} from '../src/drivers/local/builder.js';
import { RUNNERS } from '../src/drivers/local/runner-command.js';
import { extraCaEnvironment } from './extra-ca.js';
import { packDirectory } from './pack.js';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** `3.11` for a Python 3.11 interpreter; null when it does not answer. */
function versionOf(python: string): string | null {
  const result = spawnSync(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], {
    encoding: 'utf8',
  });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** Runs one builder command. */
export async function runBuilder(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      dest: { type: 'string' },
      source: { type: 'string' },
      runtime: { type: 'string' },
      entrypoint: { type: 'string' },
    },
  });
  const output = (line: string) => console.log(line);
  switch (positionals[0]) {
    case 'unpack': {
      const limits = process.env.SVC_ARCHIVE_LIMITS
        ? (JSON.parse(process.env.SVC_ARCHIVE_LIMITS) as ArchiveLimits)
        : FALLBACK_ARCHIVE_LIMITS;
      await fetchAndUnpack(env('SVC_ARCHIVE_URL'), values.dest ?? '/workspace', undefined, limits);
      output('unpack: done');
      return;
    }
    case 'build': {
      const runtime = values.runtime as Runtime;
      if (!RUNTIMES.includes(runtime))
        throw new Error(`--runtime must be one of ${RUNTIMES.join(', ')}`);
      const source = values.source ?? '/workspace';
      const python = process.env.SVC_PYTHON ?? 'python3';
      const signal = new AbortController().signal;
      // pip and npm (children of this process) trust the extra certificates too.
      Object.assign(
        process.env,
        await extraCaEnvironment(process.env.SVC_EXTRA_CA_CERTS, join(tmpdir(), 'svc-ca')),
      );
      try {
        await installDependencies(runtime, source, { python, output, signal });
        const pythonVersion = runtime.startsWith('python') ? versionOf(python) : null;
        if (pythonVersion && pythonVersion !== runtime.slice('python'.length)) {
          // Another Python's grammar would fail code that is valid where it runs; the runtime
          // reports a syntax error at its first start or run instead.
          output(`compile check skipped: the builder has Python ${pythonVersion}, not ${runtime}`);
        } else if (values.entrypoint) {
          // The image's runners, with its python and the Node running this; it has no Bun, and
          // the Node runner parses Bun's JavaScript and TypeScript alike.
          await checkEntrypoint(runtime === 'bun' ? 'node22-ts' : runtime, values.entrypoint, {
            runners: { ...RUNNERS, python },
            output,
            signal,
            run: directToolRunner(source),
            toolDir: source,
          });
        }
      } catch (err) {
        throw new Error(relativeToCode((err as Error).message, [source]), { cause: err });
      }
      const res = await fetch(env('SVC_ARTIFACT_URL'), {
        method: 'PUT',
        headers: { 'content-type': 'application/gzip' },
        // Streamed: the artifact is never held whole in memory.
        body: Readable.toWeb(packDirectory(source)),
        duplex: 'half',
      } as RequestInit);
      if (!res.ok)
        throw new Error(`Storing the artifact failed (${res.status}): ${await res.text()}`);
      output('build: artifact stored');
      return;
    }
    default:
      throw new Error(
        'usage: builder unpack --dest DIR | build --source DIR --runtime RT [--entrypoint FILE]',
      );
  }
}

/**
 * The builder of the cluster's build Jobs and of the fetch init container of
 * agent pods (the image `builder`):
 *
 *   unpack --dest DIR                   fetch the code archive ($SVC_ARCHIVE_URL) into DIR
 *   build --source DIR --runtime RT     install DIR's dependencies, pack DIR, PUT it to $SVC_ARTIFACT_URL
 *   fetch --dest DIR                    fetch the built artifact ($SVC_ARTIFACT_URL) into DIR
 *
 * The URLs carry their capability tokens. `unpack` holds the code archive to
 * the limits in $SVC_ARCHIVE_LIMITS (the deployment's `archiveLimits` as JSON),
 * or to the fallback limits when it is unset. A failure prints the tool's own
 * words, which the Job's failure message carries to the deployment.
 */
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import {
  FALLBACK_ARCHIVE_LIMITS,
  RUNTIMES,
  type ArchiveLimits,
  type Runtime,
} from '../../crds/src/index.js';
import { fetchAndUnpack, installDependencies } from '../src/drivers/local/builder.js';
import { packDirectory } from './pack.js';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** Runs one builder command. */
export async function runBuilder(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { dest: { type: 'string' }, source: { type: 'string' }, runtime: { type: 'string' } },
  });
  const output = (line: string) => console.log(line);
  switch (positionals[0]) {
    case 'unpack':
    case 'fetch': {
      const url = env(positionals[0] === 'unpack' ? 'SVC_ARCHIVE_URL' : 'SVC_ARTIFACT_URL');
      // The artifact is what the build step packed; the code archive is the user's.
      const limits =
        positionals[0] === 'unpack'
          ? process.env.SVC_ARCHIVE_LIMITS
            ? (JSON.parse(process.env.SVC_ARCHIVE_LIMITS) as ArchiveLimits)
            : FALLBACK_ARCHIVE_LIMITS
          : null;
      await fetchAndUnpack(url, values.dest ?? '/workspace', undefined, limits);
      output(`${positionals[0]}: done`);
      return;
    }
    case 'build': {
      const runtime = values.runtime as Runtime;
      if (!RUNTIMES.includes(runtime))
        throw new Error(`--runtime must be one of ${RUNTIMES.join(', ')}`);
      const source = values.source ?? '/workspace';
      await installDependencies(runtime, source, {
        python: process.env.SVC_PYTHON ?? 'python3',
        output,
        signal: new AbortController().signal,
      });
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
        'usage: builder unpack --dest DIR | build --source DIR --runtime RT | fetch --dest DIR',
      );
  }
}

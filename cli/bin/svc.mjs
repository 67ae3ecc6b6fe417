#!/usr/bin/env node
// The `svc` command. The CLI is TypeScript run through the repository's tsx
// (a dependency of the root package), so `npx svc` works from a clone without
// a build step.
import { register } from 'tsx/esm/api';

register();
// Output piped into a reader that stops early (`svc agents list | head -1`):
// what it did read is all that is wanted, so end quietly as other commands do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv);

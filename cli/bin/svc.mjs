#!/usr/bin/env node
// The `svc` command. The CLI is TypeScript run through the repository's tsx
// (a dependency of the root package), so `npx svc` works from a clone without
// a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv);

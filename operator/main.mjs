// The operator's entry point: operator/src/main.ts run through tsx, with its plain-JS
// dependencies loaded first, by Node's own loader. tsx's loader hooks run in a thread of
// their own which sees every module loaded after them; the Kubernetes client alone is
// some 2,500 modules (one per API model) that need no compiling, and passing them through
// that thread costs the process about 50 MB of resident memory for good, and start-up
// time. Loaded before the hooks, they are in the module map already when the TypeScript
// imports them. A dependency missing from this list still works, through the hooks.
//
//   node operator/main.mjs        (what `node --import tsx operator/src/main.ts` did)
import '@kubernetes/client-node';
import '@sinclair/typebox';
import 'cron-parser';
import 'prom-client';
import 'tar-stream';
import 'winston';
import { register } from 'tsx/esm/api';

register();
await import('./src/main.ts');

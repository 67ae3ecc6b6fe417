// The operator's entry point: operator/src/main.ts run through tsx, with the Kubernetes
// client loaded first, by Node's own loader. tsx's loader hooks run in a thread of their
// own which sees every module loaded after them; the client is some 2,500 plain-JS
// modules (one per API model) that need no compiling, and passing them through that
// thread costs the process about 50 MB of resident memory for good. Loaded before the
// hooks, they are in the module map already when the TypeScript imports them.
//
//   node operator/main.mjs        (what `node --import tsx operator/src/main.ts` did)
import '@kubernetes/client-node';
import { register } from 'tsx/esm/api';

register();
await import('./src/main.ts');

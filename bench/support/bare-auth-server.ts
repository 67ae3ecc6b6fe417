/**
 * The floor the control-plane bench compares `GET /agents/{agent}` with: a
 * bare Koa handler behind the same request context, error envelope and
 * authentication and rate-limit guards as every control-plane route, over the
 * same MongoDB, answering a fixed body. Prints `{"ready":"bare","url":...}`.
 *
 *   MONGODB_URI=... npx tsx bench/support/bare-auth-server.ts
 */
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../common/logger.js';
import { AccountService } from '../../apiserver/src/accounts/account-service.js';
import { loadPlans } from '../../apiserver/src/accounts/plans.js';
import { controlPlaneGuards } from '../../apiserver/src/control-plane/guards.js';
import { controlPlaneErrors } from '../../apiserver/src/control-plane/error-envelope.js';
import { requestContext } from '../../apiserver/src/middleware/request-context.js';
import { MongoWindowStore } from '../../apiserver/src/rate-limit/mongo-window-store.js';
import { collections } from '../../apiserver/src/store/database.js';

const mongo = new MongoClient(process.env.MONGODB_URI ?? '');
const c = collections(mongo.db());
const guards = controlPlaneGuards(
  { accounts: new AccountService(c, 'local'), plans: loadPlans(undefined) },
  new MongoWindowStore(c.rateBuckets),
);
const app = new Koa();
app.silent = true;
app.use(requestContext(createLogger('bare', 'warn')));
app.use(controlPlaneErrors());
app.use(async (ctx) => {
  const caller = await guards.authenticate(ctx);
  await guards.rateLimit(ctx, caller);
  ctx.body = { id: caller.account._id, name: 'bare' };
});
const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(JSON.stringify({ ready: 'bare', url: `http://127.0.0.1:${port}` }));
});
process.once('SIGTERM', () => {
  server.close();
  void mongo.close().then(() => process.exit(0));
});

/**
 * `npm run admin -- <command> [options]`: account and key administration,
 * straight against MongoDB (MONGODB_URI, or the one `npm start` wrote to
 * .dev/env). Prints the result as JSON; a new key's text is printed once and
 * never stored.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { readEnvValue } from '../../../common/env-file.js';
import { AccountService } from '../accounts/account-service.js';
import { collections, ensureIndexes } from '../store/database.js';
import { loadRegionRegistry } from '../regions/load-regions.js';
import { runAdmin } from './cli.js';

function mongoUri(): string {
  if (process.env.MONGODB_URI) return process.env.MONGODB_URI;
  try {
    const uri = readEnvValue(
      readFileSync(join(process.cwd(), '.dev', 'env'), 'utf8'),
      'MONGODB_URI',
    );
    if (uri) return uri;
  } catch {
    // no .dev/env: fall through
  }
  throw new Error('set MONGODB_URI, or start the platform (npm start) so .dev/env has it');
}

async function main(): Promise<void> {
  const client = new MongoClient(mongoUri(), { serverSelectionTimeoutMS: 5000 });
  try {
    const c = collections(client.db());
    await ensureIndexes(c);
    // The registry's first region, as the API server reads it (SVC_REGIONS_FILE, _JSON or SVC_REGIONS).
    const defaultRegion = loadRegionRegistry(process.env).home.name;
    const result = await runAdmin(process.argv.slice(2), new AccountService(c, defaultRegion));
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await client.close();
  }
}

main().catch((err: unknown) => {
  console.error(`admin: ${(err as Error).message}`);
  process.exitCode = 1;
});

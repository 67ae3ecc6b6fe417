/** Entry point of the builder image: `builder <command> [options]` (see cli.ts). */
import { runBuilder } from './cli.js';

runBuilder(process.argv.slice(2)).catch((err: unknown) => {
  console.error((err as Error).message);
  process.exit(1);
});

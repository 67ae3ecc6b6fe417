/** `svc collections list|create|info|delete`: vector collections, on the vector plane. */
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { integer } from './agent-fields.js';
import { withExamples } from './help.js';

const enc = encodeURIComponent;
const collect = (value: string, previous: string[] = []) => [...previous, value];
/** The collection route of `name`, workspace-scoped with --workspace. */
const collectionPath = (name: string, workspace?: string) =>
  workspace
    ? `/api/v1/workspaces/${enc(workspace)}/collections/${enc(name)}`
    : `/api/v1/collections/${enc(name)}`;

/** Adds `svc collections` to `program`. */
export function registerCollectionCommands(program: Command): void {
  const collections = withExamples(
    program
      .command('collections')
      .description('Vector collections (the vector plane, SVC_VECTORS_URL).'),
    ['svc collections', 'svc collections create docs --size 384', 'svc collections info docs'],
  );

  withExamples(
    collections
      .command('list', { isDefault: true })
      .description("The account's collections (workspace ones show their workspace).")
      .action(async (_opts, cmd: Command) => {
        const ctx = contextOf(cmd);
        const answer = await (
          await ctx.vectors()
        ).request<{
          result: { collections: Record<string, unknown>[] };
        }>('GET', '/api/v1/collections');
        ctx.out.list(
          answer.result.collections.map((c) => ({ ...c, ...flatVectors(c) })),
          ['name', 'size', 'distance', 'workspace', 'regions', 'description'],
          answer,
        );
      }),
    ['svc collections', 'svc collections --json | jq -r ".result.collections[].name"'],
  );

  withExamples(
    collections
      .command('create <name>')
      .description('Create a collection (idempotent for the same configuration).')
      .requiredOption('--size <n>', 'vector dimensionality', integer)
      .option('--distance <distance>', 'Cosine, Euclid, Dot or Manhattan', 'Cosine')
      .option('--description <text>', 'a description')
      .option('--region <region>', 'a region (repeat for several)', collect)
      .option('-w, --workspace <workspace>', 'create it in a workspace')
      .action(
        async (
          name: string,
          opts: {
            size: number;
            distance: string;
            description?: string;
            region?: string[];
            workspace?: string;
          },
          cmd: Command,
        ) => {
          const ctx = contextOf(cmd);
          const path = opts.workspace
            ? `/api/v1/workspaces/${enc(opts.workspace)}/collections`
            : '/api/v1/collections';
          const answer = await (
            await ctx.vectors()
          ).request<{ result: unknown }>('POST', path, {
            json: {
              name,
              vectors: { size: opts.size, distance: opts.distance },
              description: opts.description,
              regions: opts.region,
            },
          });
          ctx.out.result(answer, () => ctx.out.ok(`Collection ${name} is there.`));
        },
      ),
    ['svc collections create docs --size 384 --distance Cosine'],
  );

  withExamples(
    collections
      .command('info <name>')
      .description('One collection: configuration, status, points.')
      .option('-w, --workspace <workspace>', 'the collection is in a workspace')
      .action(async (name: string, opts: { workspace?: string }, cmd: Command) => {
        const ctx = contextOf(cmd);
        const answer = await (
          await ctx.vectors()
        ).request<{ result: Record<string, unknown> }>('GET', collectionPath(name, opts.workspace));
        ctx.out.result(answer, () =>
          ctx.out.record({ ...answer.result, ...flatVectors(answer.result) }),
        );
      }),
    ['svc collections info docs'],
  );

  withExamples(
    collections
      .command('delete <name>')
      .description(
        'Delete a collection and its points (409 COLLECTION_IN_USE while agents use it).',
      )
      .option('-w, --workspace <workspace>', 'the collection is in a workspace')
      .action(async (name: string, opts: { workspace?: string }, cmd: Command) => {
        const ctx = contextOf(cmd);
        const answer = await (
          await ctx.vectors()
        ).request('DELETE', collectionPath(name, opts.workspace));
        ctx.out.result(answer, () => ctx.out.ok(`Deleted collection ${name}.`));
      }),
    ['svc collections delete docs'],
  );
}

/** `vectors.size` and `vectors.distance` as columns. */
function flatVectors(collection: Record<string, unknown>): { size?: unknown; distance?: unknown } {
  const vectors = collection.vectors as { size?: unknown; distance?: unknown } | undefined;
  return { size: vectors?.size, distance: vectors?.distance };
}

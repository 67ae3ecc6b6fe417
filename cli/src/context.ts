/**
 * What every command gets from the global options: the printer and, on
 * first use, the resolved connection and a client for each front door.
 */
import type { Command } from 'commander';
import { resolveConnection, type Connection } from './config/connection.js';
import { CliError, EXIT } from './errors.js';
import { ApiClient } from './http/api-client.js';
import { Output } from './output.js';

/** The global options (see main.ts). */
export interface GlobalOptions {
  apiUrl?: string;
  vectorsUrl?: string;
  profile?: string;
  json?: boolean;
  color?: boolean;
}

/** A command's view of the CLI. */
export interface Context {
  out: Output;
  options: GlobalOptions;
  /** The connection; `profileMustExist` false lets `svc login` name a new profile. */
  connection(profileMustExist?: boolean): Promise<Connection>;
  /** The control plane, with the key (fails when there is none). */
  control(): Promise<ApiClient>;
  /** The vector plane, with the same key. */
  vectors(): Promise<ApiClient>;
}

/** The context of the command being run (`cmd.optsWithGlobals()` holds the global options). */
export function contextOf(cmd: Command): Context {
  const options = cmd.optsWithGlobals<GlobalOptions>();
  const out = new Output(Boolean(options.json), options.color);
  let resolved: Promise<Connection> | undefined;
  const connection = (profileMustExist = true) =>
    (resolved ??= resolveConnection(options, process.env, process.cwd(), profileMustExist));
  const client = async (plane: 'control' | 'vectors') => {
    const conn = await connection();
    if (!conn.apiKey)
      throw new CliError(
        'No API key: run `svc login` (it reads the key from stdin), set SVC_API_KEY, or start the platform with `npm start` in this clone.',
        EXIT.auth,
      );
    return new ApiClient({
      baseUrl: plane === 'control' ? conn.apiUrl : conn.vectorsUrl,
      apiKey: conn.apiKey,
      onRetry: ({ status, code, waitMs, attempt }) =>
        out.note(
          out.errColors.yellow(
            `${status} ${code}: retrying in ${(waitMs / 1000).toFixed(1)} s (attempt ${attempt})`,
          ),
        ),
    });
  };
  return {
    out,
    options,
    connection,
    control: () => client('control'),
    vectors: () => client('vectors'),
  };
}

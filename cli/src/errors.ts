/**
 * How the CLI fails: an API answer that is an error ({@link ApiError}, with
 * the contract's `code` and `message`), or a problem of its own
 * ({@link CliError}). Each becomes one exit code, so scripts can tell a
 * missing agent from a rejected key or an unreachable server.
 */

/** The exit codes of `svc`, documented in `svc --help`. */
export const EXIT = {
  ok: 0,
  /** A command that ran but ended badly: a failed deployment or run, an unexpected answer. */
  failure: 1,
  /** Wrong arguments or options. */
  usage: 2,
  /** 401 or 403: no key, a key that does not resolve, an account that may not do this. */
  auth: 3,
  /** 404: the agent, deployment, workspace or collection does not exist. */
  notFound: 4,
  /** Another 4xx: the request was refused (validation, conflict, plan limit, a 429 other than the rate limit). */
  rejected: 5,
  /** 429 or 5xx still failing after the retries. */
  unavailable: 6,
  /** The server could not be reached at all. */
  network: 7,
  /** Ctrl-C (what a shell reports for SIGINT). */
  interrupted: 130,
} as const;

/** An error answer of the control plane (`{detail}`) or the vector plane (`{error}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The contract's stable code, or `HTTP_<status>` when the answer carried none. */
    readonly code: string,
    message: string,
    /** The envelope's other fields (`violations`, `retry_after_seconds`, ...). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The exit code this answer maps to. */
  get exitCode(): number {
    if (this.status === 401 || this.status === 403) return EXIT.auth;
    if (this.status === 404) return EXIT.notFound;
    if (this.status === 429 && this.code !== 'RATE_LIMIT_EXCEEDED') return EXIT.rejected;
    if (this.status === 429 || this.status >= 500) return EXIT.unavailable;
    return EXIT.rejected;
  }
}

/** A failure of the CLI itself, with the exit code it ends with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The exit code of any error a command threw. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof ApiError || err instanceof CliError) return err.exitCode;
  return EXIT.failure;
}

/**
 * Reads an error answer's body into an {@link ApiError}: the control plane's
 * `{detail: {code, message}}`, the vector plane's `{error: {code, message}}`,
 * an unrouted path's `{detail: 'Not Found'}`, or plain text.
 */
export function apiErrorFromBody(status: number, text: string): ApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new ApiError(status, `HTTP_${status}`, text.trim() || `HTTP ${status}`);
  }
  const envelope = parsed as { detail?: unknown; error?: unknown };
  const inner = envelope.detail ?? envelope.error;
  if (typeof inner === 'string') return new ApiError(status, `HTTP_${status}`, inner);
  if (inner && typeof inner === 'object') {
    const { code, message, ...rest } = inner as Record<string, unknown>;
    return new ApiError(
      status,
      typeof code === 'string' ? code : `HTTP_${status}`,
      typeof message === 'string' ? message : `HTTP ${status}`,
      rest,
    );
  }
  return new ApiError(status, `HTTP_${status}`, text.trim());
}

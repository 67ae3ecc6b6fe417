/**
 * The one error catalogue of the API server. Every error a route can return is
 * a subclass of {@link ApiError} declared here with its HTTP status, stable
 * `code` and a description for the OpenAPI document. Each front door turns
 * them into its own envelope (`{detail:{...}}` on the control plane,
 * `{error:{...}}` on the vector plane and the edge).
 */

/** Options of an {@link ApiError}. */
export interface ApiErrorOptions {
  /** Context fields beside `message` (`agent`, `field`, `allowed`, ...). */
  fields?: Record<string, unknown>;
  /** Response headers the error needs (`Retry-After`, `WWW-Authenticate`). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An error with an HTTP status and a stable, append-only code. */
export class ApiError extends Error {
  readonly fields: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options: ApiErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.fields = options.fields ?? {};
    this.headers = options.headers ?? {};
  }
}

/** The static side of a catalogue entry: what the OpenAPI document lists. */
export interface ErrorClass {
  readonly code: string;
  readonly status: number;
  readonly description: string;
  new (message: string, options?: ApiErrorOptions): ApiError;
}

function entry<C extends string>(code: C, status: number, description: string) {
  return class extends ApiError {
    static readonly code = code;
    static readonly status = status;
    static readonly description = description;
    constructor(message: string, options?: ApiErrorOptions) {
      super(status, code, message, options);
    }
  };
}

// Authentication and limits: every authenticated route.
/** 401: no Authorization header, or one that is not `Bearer <key>`. */
export class MissingApiKey extends entry(
  'MISSING_API_KEY',
  401,
  'No Authorization: Bearer header.',
) {}
/** 401: the key does not resolve (unknown, malformed or revoked). */
export class InvalidApiKey extends entry('INVALID_API_KEY', 401, 'The API key does not resolve.') {}
/** 403: the account is suspended for unpaid bills. */
export class AccountSuspended extends entry(
  'ACCOUNT_SUSPENDED',
  403,
  'The account is suspended.',
) {}
/** 403: the subscription is not active, trialing or past due; carries `subscription_status`. */
export class SubscriptionInactive extends entry(
  'AUTH_SUBSCRIPTION_INACTIVE',
  403,
  'The subscription is not active; carries subscription_status.',
) {}
/** 500: the key store could not be read; retry. */
export class AuthenticationError extends entry(
  'AUTHENTICATION_ERROR',
  500,
  'Authentication itself failed; retry.',
) {}
/** 429: the per-minute budget is spent; carries `limit`, `retry_after_seconds`. */
export class RateLimitExceeded extends entry(
  'RATE_LIMIT_EXCEEDED',
  429,
  'Per-minute request budget exhausted; carries limit and retry_after_seconds, with Retry-After.',
) {}
/** 422: the request failed its schema; carries `violations`. */
export class ValidationFailed extends entry(
  'VALIDATION_ERROR',
  422,
  'The request failed schema validation; see violations [{loc, msg, type}].',
) {}
/** 503: a worker held a lock too long; safe to retry. */
export class ResourceBusy extends entry(
  'RESOURCE_BUSY',
  503,
  'The resource was being changed by someone else; retry in a few seconds.',
) {}
/** 503: a dependency was unreachable; nothing was written. */
export class ServiceUnavailable extends entry(
  'SERVICE_UNAVAILABLE',
  503,
  'A dependency was unreachable; nothing was written; retry in a few seconds.',
) {}

/** 405 on the control plane: the path exists but does not take the method; the Allow header lists those it takes. */
export class MethodNotAllowed extends entry(
  'METHOD_NOT_ALLOWED',
  405,
  'The path does not take this method; the Allow header lists the methods it takes.',
) {}
/** 415 on the control plane: a JSON route received a body of another content type. */
export class JsonBodyRequired extends entry(
  'UNSUPPORTED_MEDIA_TYPE',
  415,
  'The body must be JSON, sent as Content-Type: application/json.',
) {}

/** 415: a request body sent with a content coding (gzip, br, …); bodies are read as sent. */
export class EncodedBodyRefused extends entry(
  'UNSUPPORTED_MEDIA_TYPE',
  415,
  'The body was sent with a Content-Encoding (gzip, br, deflate, …); request bodies are read as sent, so send it unencoded (the answer says Accept-Encoding: identity).',
) {}

/** 413: the request body is larger than the route accepts; carries `max_bytes`. */
export class RequestTooLarge extends entry(
  'REQUEST_TOO_LARGE',
  413,
  'The request body is larger than this route accepts; carries max_bytes.',
) {}

// Agents.
/** 404: unknown agent name or UUID, or another account's agent. */
export class AgentNotFound extends entry(
  'AGENT_NOT_FOUND',
  404,
  "Unknown agent name or UUID, or another account's agent.",
) {}
/** 409: another agent of the account has this name. */
export class AgentNameTaken extends entry(
  'AGENT_NAME_TAKEN',
  409,
  'Another agent of this account already has the name; carries agent.',
) {}
/** 400: the runtime of an existing agent cannot change. */
export class RuntimeImmutable extends entry(
  'RUNTIME_IMMUTABLE',
  400,
  'The runtime of an existing agent cannot change; create a new agent instead.',
) {}
/** 400: a per-agent plan cap (memory, keep_alive, regions, dockerfile, tier) is exceeded. */
export class PlanLimitExceeded extends entry(
  'PLAN_LIMIT_EXCEEDED',
  400,
  'A value is outside what the plan allows; carries field, allowed and tier.',
) {}
/** 400: a region that this installation does not offer. */
export class RegionNotAvailable extends entry(
  'REGION_NOT_AVAILABLE',
  400,
  'A requested region is not offered; carries allowed.',
) {}
/** 409: the action needs a deployed agent. */
export class AgentNotDeployed extends entry(
  'AGENT_NOT_DEPLOYED',
  409,
  'The action needs a deployed agent; carries current_state.',
) {}
/** 409: the action does not apply in the agent's current state. */
export class AgentStateConflict extends entry(
  'AGENT_STATE_CONFLICT',
  409,
  "The action does not apply in the agent's current state; carries current_state.",
) {}
/** 403: an agent's own key (SVC_API_KEY) used on a route that acts on the whole account. */
export class AgentKeyForbidden extends entry(
  'AGENT_KEY_FORBIDDEN',
  403,
  "An agent's own key (SVC_API_KEY) acts on its agent only; this route needs an account key.",
) {}

// Workspaces, region changes and their operations.
/** 404: unknown workspace name or id, or another account's workspace. */
export class WorkspaceNotFound extends entry(
  'WORKSPACE_NOT_FOUND',
  404,
  "Unknown workspace name or id, or another account's workspace; carries workspace.",
) {}
/** 409: the account already has a workspace of this name. */
export class WorkspaceNameTaken extends entry(
  'WORKSPACE_NAME_TAKEN',
  409,
  'The account already has a workspace of this name; carries workspace.',
) {}
/** 400: a workspace update named a different name; names are immutable. */
export class WorkspaceNameImmutable extends entry(
  'WORKSPACE_NAME_IMMUTABLE',
  400,
  'A workspace keeps its name; create a new workspace instead. Carries workspace.',
) {}
/** 409: the workspace still holds agents or collections; carries dependents. */
export class WorkspaceNotEmpty extends entry(
  'WORKSPACE_NOT_EMPTY',
  409,
  'The workspace still holds agents or collections; carries dependents {agents: [{id, name}], collections: [name]}. Move or delete them first.',
) {}
/** 409: a region change of the same workspace or collection has not finished. */
export class RegionChangeInProgress extends entry(
  'REGION_CHANGE_IN_PROGRESS',
  409,
  'A region change of this workspace or collection is still running; carries operation_id. Poll it, then retry.',
) {}
/** 404: unknown operation id, or another account's operation. */
export class OperationNotFound extends entry(
  'OPERATION_NOT_FOUND',
  404,
  "Unknown operation id, or another account's operation; carries operation_id.",
) {}

// Secrets.
/** 404: the agent has no secret of this key. */
export class SecretNotFound extends entry(
  'SECRET_NOT_FOUND',
  404,
  'The agent has no secret of this key; carries key.',
) {}
/** 413: a secret value, or all of an agent's values together, over the size cap. */
export class SecretValueTooLarge extends entry(
  'SECRET_VALUE_TOO_LARGE',
  413,
  "A secret value, or all of an agent's secret values together, is larger than allowed; carries field and max_bytes.",
) {}

// Deployments.
/** 400: the upload is not a gzip-compressed tar archive. */
export class InvalidArchive extends entry(
  'INVALID_ARCHIVE',
  400,
  'The upload is not a tar.gz archive (Content-Type: application/gzip).',
) {}
/**
 * 413: the archive unpacks past one of the plan's limits (checked while it
 * streams, before anything is stored); carries field, allowed, tier, and path
 * for a file over the per-file limit.
 */
export class ArchiveTooLarge extends entry(
  'ARCHIVE_TOO_LARGE',
  413,
  'The archive unpacks past a limit of the plan: field names it (unpacked_bytes: all files together; entries: files, directories and links; file_bytes: one file, named by path), allowed is the limit (bytes or entries), tier the plan. Nothing was stored.',
) {}
/** 415: the deploy body has a content type other than application/gzip. */
export class UnsupportedMediaType extends entry(
  'UNSUPPORTED_MEDIA_TYPE',
  415,
  'The body must be a tar.gz archive sent as Content-Type: application/gzip.',
) {}
/** 403: deploying would exceed the plan's agent-count quota; carries field, allowed, tier. */
export class AgentQuotaExceeded extends entry(
  'PLAN_LIMIT_EXCEEDED',
  403,
  "Deploying another agent would exceed the plan's agent quota; carries field, allowed and tier.",
) {}
/** 404: unknown deployment id or version, or another account's. */
export class DeploymentNotFound extends entry(
  'DEPLOYMENT_NOT_FOUND',
  404,
  "Unknown deployment, or another account's deployment.",
) {}
/** 409: the deployment already reached a final state. */
export class DeploymentNotCancellable extends entry(
  'DEPLOYMENT_NOT_CANCELLABLE',
  409,
  'The deployment already finished; carries current_state.',
) {}
/** 409: the version cannot be rolled back to (never built, a run, code no longer stored, or serving now). */
export class RollbackNotAllowed extends entry(
  'ROLLBACK_NOT_ALLOWED',
  409,
  'The version cannot be rolled back to; carries reason.',
) {}

// Internal routes.
/** 401: an /internal/ route called without the capability token for that deployment and purpose. */
export class InternalTokenInvalid extends entry(
  'INTERNAL_TOKEN_INVALID',
  401,
  'The /internal/ route needs the capability token for this deployment and purpose.',
) {}

// Runs, schedules, spawns.
/** 429: the agent already has as many runs in flight as the plan allows; carries field, allowed, tier. */
export class RunsInFlightExceeded extends entry(
  'PLAN_LIMIT_EXCEEDED',
  429,
  'The agent has as many runs in flight as the plan allows; carries field (runs_in_flight), allowed and tier.',
) {}
/** 409: pause or resume of an agent without a schedule. */
export class ScheduleNotSet extends entry(
  'SCHEDULE_NOT_SET',
  409,
  'The agent has no schedule; deploy one with schedule in svc.yaml.',
) {}
/** 403: the parent may not spawn this child (spawn_enabled off, or not in allowed_workers). */
export class SpawnNotAllowed extends entry(
  'SPAWN_NOT_ALLOWED',
  403,
  'The agent may not spawn this child: spawn_enabled is off, or the child is not in allowed_workers; carries reason.',
) {}

// Code host and its webhooks.
/** 404: the account has not connected a code host. */
export class CodehostNotConnected extends entry(
  'CODEHOST_NOT_CONNECTED',
  404,
  'The account has no code host; connect one with PUT /api/v1/auth/codehost.',
) {}
/** 404: the agent is not linked to a repository. */
export class CodehostLinkNotFound extends entry(
  'CODEHOST_LINK_NOT_FOUND',
  404,
  'The agent is not linked to a repository; carries agent.',
) {}
/** 400: a code-host or repository address the rules refuse. */
export class CodehostUrlNotAllowed extends entry(
  'CODEHOST_URL_NOT_ALLOWED',
  400,
  'The address is not an HTTPS URL on the code host (no credentials, query or fragment); carries field.',
) {}
/** 502: the code host did not give the commit. */
export class CodehostFetchFailed extends entry(
  'CODEHOST_FETCH_FAILED',
  502,
  'The commit could not be fetched from the code host; nothing was deployed and the delivery may be sent again.',
) {}
/** 401: a webhook delivery without a valid signature. */
export class WebhookSignatureInvalid extends entry(
  'WEBHOOK_SIGNATURE_INVALID',
  401,
  'The delivery carries no signature, or one not made with the webhook secret; nothing was done.',
) {}

// Vector plane.
/** 400 on the vector plane: a field failed validation; carries `field` (and `max` for caps). */
export class VectorValidationError extends entry(
  'VALIDATION_ERROR',
  400,
  'A field failed validation; carries field, and max for numeric caps.',
) {}
/** 404 on the vector plane: unsupported endpoint or unknown path. */
export class VectorNotFound extends entry(
  'NOT_FOUND',
  404,
  'Unsupported endpoint or unknown path.',
) {}
/** 405 on the vector plane: the path does not take this method. */
export class VectorMethodNotAllowed extends entry(
  'METHOD_NOT_ALLOWED',
  405,
  'The method is not supported on this path.',
) {}
/** 403: the collection named belongs to another account. */
export class CollectionOwnershipMismatch extends entry(
  'COLLECTION_OWNERSHIP_MISMATCH',
  403,
  'The collection belongs to another account.',
) {}
/** 404: no such collection for this account. */
export class CollectionNotFound extends entry(
  'COLLECTION_NOT_FOUND',
  404,
  'No such collection; carries collection_name.',
) {}
/** 400: a point id is neither an unsigned integer nor a UUID. */
export class InvalidPointId extends entry(
  'INVALID_POINT_ID',
  400,
  'A point id is neither an unsigned integer nor a UUID.',
) {}
/** 400: more than 10,000 points in one upsert; carries field and max. */
export class TooManyPoints extends entry(
  'TOO_MANY_POINTS',
  400,
  'More than 10,000 points in one upsert; carries field and max.',
) {}
/** 400: a payload key begins `__svc_` (other than the two attested keys). */
export class ReservedField extends entry(
  'RESERVED_FIELD',
  400,
  'A payload key begins __svc_ and is reserved; carries field.',
) {}
/** 400: the body is not valid JSON. */
export class MalformedJson extends entry('MALFORMED_JSON', 400, 'The body is not valid JSON.') {}
/** 400: the plan's collection cap is reached; carries field and max. */
export class CollectionLimitExceeded extends entry(
  'COLLECTION_LIMIT_EXCEEDED',
  400,
  "The plan's collection cap is reached; carries field and max.",
) {}
/** 400: one point's payload exceeds 64 KB; carries field and max. */
export class PointPayloadTooLarge extends entry(
  'PAYLOAD_TOO_LARGE',
  400,
  "One point's payload exceeds 64 KB; carries field and max.",
) {}
/** 413: the upsert wire body exceeds 500 MB; carries max. */
export class UpsertBodyTooLarge extends entry(
  'PAYLOAD_TOO_LARGE',
  413,
  'The upsert body exceeds 500 MB; carries max.',
) {}
/** 408: 30 s without a byte of an upsert body. */
export class RequestIdleTimeout extends entry(
  'REQUEST_IDLE_TIMEOUT',
  408,
  'No bytes of the upsert body arrived for 30 seconds.',
) {}
/** 409: the collection exists in other regions; carries existing_regions. */
export class CollectionExistsInOtherRegion extends entry(
  'COLLECTION_EXISTS_IN_OTHER_REGION',
  409,
  'The collection already lives in other regions; carries existing_regions.',
) {}
/** 409: the name is in use with a different configuration. */
export class CollectionNameTaken extends entry(
  'COLLECTION_NAME_TAKEN',
  409,
  'The name is in use with a different configuration; carries collection_name.',
) {}
/** 409: an agent used the collection within 35 days; carries agents. */
export class CollectionInUse extends entry(
  'COLLECTION_IN_USE',
  409,
  'An agent read or wrote the collection within the last 35 days; carries agents.',
) {}
/** 409: a prior deletion of the collection is still finishing; retry. */
export class CleanupInProgress extends entry(
  'CLEANUP_IN_PROGRESS',
  409,
  'A prior deletion is still finishing; retry shortly (retriable).',
) {}
/** 429: the plan's vector storage cap is reached; free space first (not retriable); carries field and max. */
export class StorageLimitExceeded extends entry(
  'STORAGE_LIMIT_EXCEEDED',
  429,
  "The plan's vector storage cap is reached; delete points or collections first. Not retriable; carries field and max (MB).",
) {}
/** 413: the response would exceed 10 MB; carries size_mb and max_size_mb. */
export class ResponseTooLarge extends entry(
  'RESPONSE_TOO_LARGE',
  413,
  'The response would exceed 10 MB; carries size_mb and max_size_mb.',
) {}
/** 422: no regions resolved for the collection. */
export class CollectionRegionsEmpty extends entry(
  'COLLECTION_REGIONS_EMPTY',
  422,
  'No regions resolved for the collection.',
) {}
/** 422: regions outside the plan's scope or this installation's offer; carries allowed. */
export class CollectionRegionsNotInScope extends entry(
  'COLLECTION_REGIONS_NOT_IN_SCOPE',
  422,
  "Regions outside the plan's scope; carries allowed.",
) {}
/** 422: a single-region plan asked for a region other than its fixed one; carries existing_regions. */
export class StarterRegionConsistency extends entry(
  'STARTER_REGION_CONSISTENCY',
  422,
  'A single-region plan asked for a different region; carries existing_regions.',
) {}
/** 404: the collection has no payload schema. */
export class SchemaNotDefined extends entry(
  'SCHEMA_NOT_DEFINED',
  404,
  'The collection has no payload schema; carries collection_name.',
) {}
/** 412: `If-Match` does not name the current schema; carries current_etag (null when none). */
export class SchemaVersionMismatch extends entry(
  'SCHEMA_VERSION_MISMATCH',
  412,
  'If-Match does not name the current payload schema; carries current_etag.',
) {}
/** 400: a write breaks the collection's strict payload schema; carries details.violations. */
export class SchemaValidationFailed extends entry(
  'SCHEMA_VALIDATION_FAILED',
  400,
  "A payload breaks the collection's strict schema; carries details.violations.",
) {}
/** 400: enforcement_mode is not off, warn or strict. */
export class InvalidEnforcementMode extends entry(
  'INVALID_ENFORCEMENT_MODE',
  400,
  'enforcement_mode is not off, warn or strict; carries allowed.',
) {}
/** 400: sample_size is not an integer from 100 to 10,000. */
export class InvalidSampleSize extends entry(
  'INVALID_SAMPLE_SIZE',
  400,
  'sample_size is not an integer from 100 to 10,000; carries field, min and max.',
) {}
/** 400: the conformance mode is not sample or full. */
export class InvalidScanMode extends entry(
  'INVALID_SCAN_MODE',
  400,
  'The conformance mode is not sample or full; carries allowed.',
) {}
/** 400: max_examples is not an integer from 0 to 100. */
export class InvalidMaxExamples extends entry(
  'INVALID_MAX_EXAMPLES',
  400,
  'max_examples is not an integer from 0 to 100; carries field, min and max.',
) {}
/** 500 on the vector plane: an unhandled failure. */
export class VectorInternalError extends entry('INTERNAL_ERROR', 500, 'Unhandled failure.') {}
/** 502: the engine could not be reached. */
export class ProxyError extends entry(
  'PROXY_ERROR',
  502,
  'The upstream engine call could not complete; retry.',
) {}
/** 504: the engine call timed out. */
export class GatewayTimeout extends entry(
  'GATEWAY_TIMEOUT',
  504,
  'The upstream engine call timed out; retry.',
) {}
/**
 * An engine error passed through: the engine's own code when its body carries
 * one, otherwise a fallback code synthesised from the HTTP status
 * (BAD_REQUEST, CONFLICT, UPSTREAM_ERROR, ...). Status and code vary, so this
 * one entry is not a fixed catalogue row.
 */
export class EngineError extends ApiError {
  /** The fallback codes by engine HTTP status; anything else is UPSTREAM_ERROR. */
  static readonly FALLBACK_CODES: Readonly<Record<number, string>> = {
    400: 'BAD_REQUEST',
    401: 'UNAUTHORIZED',
    403: 'FORBIDDEN',
    404: 'NOT_FOUND',
    409: 'CONFLICT',
    412: 'PRECONDITION_FAILED',
    429: 'RATE_LIMITED',
  };
}

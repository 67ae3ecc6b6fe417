/**
 * The engine's errors. Each carries the HTTP status Qdrant answers with for the same
 * failure, and a message worded like Qdrant's, because clients (and the vector gateway)
 * branch on the status and show the message.
 */

/** An error the HTTP layer turns into `{status:{error}}` with {@link EngineError.status}. */
export class EngineError extends Error {
  constructor(
    readonly status: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'EngineError';
  }
}

/** 400 for a body that does not have the shape of the request (Qdrant's serde errors). */
export function formatError(detail: string): EngineError {
  return new EngineError(400, `Format error in JSON body: ${detail}`);
}

/** 400 for a well-formed request the data rejects (wrong dimension, unknown index, ...). */
export function badRequest(detail: string): EngineError {
  return new EngineError(400, `Bad request: ${detail}`);
}

/** 400 "Wrong input", Qdrant's wording for a request that conflicts with the collection. */
export function wrongInput(detail: string): EngineError {
  return new EngineError(400, `Wrong input: ${detail}`);
}

/** 422 for a value outside the range a field allows (Qdrant's validator errors). */
export function validationError(detail: string): EngineError {
  return new EngineError(422, `Validation error in JSON body: [${detail}]`);
}

/** 404 for a missing collection, point or route. */
export function notFound(detail: string): EngineError {
  return new EngineError(404, `Not found: ${detail}`);
}

/** 409 for a collection that already exists. */
export function conflict(detail: string): EngineError {
  return new EngineError(409, `Wrong input: ${detail}`);
}

/** The 404 for a collection name nobody created. */
export function collectionNotFound(name: string): EngineError {
  return notFound(`Collection \`${name}\` doesn't exist!`);
}

/** The 404 Qdrant gives when an update names a point that does not exist. */
export function pointNotFound(id: string | number): EngineError {
  return notFound(`No point with id ${id} found`);
}

/**
 * The catalogue errors vector routes share, grouped by what causes them, for
 * the routes' declarations (and so the OpenAPI document) to list.
 */
import {
  CollectionNotFound,
  CollectionOwnershipMismatch,
  GatewayTimeout,
  InvalidPointId,
  MalformedJson,
  PointPayloadTooLarge,
  ProxyError,
  ReservedField,
  ResponseTooLarge,
  StorageLimitExceeded,
  VectorValidationError,
} from '../errors/catalogue.js';
import { PlainJsonRequired } from './json-body.js';

/** A route naming a collection of the caller's. */
export const COLLECTION = [CollectionOwnershipMismatch, VectorValidationError, CollectionNotFound];
/** A route that calls the engine. */
export const ENGINE = [ProxyError, GatewayTimeout, ResponseTooLarge];
/** What every route reading a JSON body can answer about the body itself. */
export const JSON_BODY = [MalformedJson, VectorValidationError, PlainJsonRequired];
/** A point route that reads. */
export const POINT_READ = [...COLLECTION, ...JSON_BODY, InvalidPointId, ...ENGINE];
/** A point route that writes. */
export const POINT_WRITE = [...POINT_READ, ReservedField, PointPayloadTooLarge];
/** Writes that add data: the plan's storage cap applies (deletes are never refused). */
export const POINT_GROW = [...POINT_WRITE, StorageLimitExceeded];
/** A payload schema route. */
export const SCHEMA = [...COLLECTION, ...JSON_BODY];

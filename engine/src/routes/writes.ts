/**
 * Point, payload, vector and payload-index writes. Each parses and validates the whole
 * request first, so a bad request changes nothing, then hands one operation to the
 * engine and answers Qdrant's `{operation_id, status}` once it is durable. With
 * `wait=false` Qdrant acknowledges before applying; here the write is applied and logged
 * either way and only the reported status differs.
 */
import { formatError } from '../errors.js';
import { parseFilter } from '../filter/parse.js';
import type { Router, RouteContext } from '../http/router.js';
import { parseJsonPath } from '../json-path.js';
import { objectBody, optional, readPayload } from '../request/fields.js';
import {
  readIndexSchema,
  readSelector,
  readUpsertPoints,
  readVectorUpdates,
} from '../request/selectors.js';
import { expectFields, readVariant } from '../request/strict.js';
import type { Engine } from '../store/engine.js';
import type { Operation } from '../store/operations.js';
import { upsertsThatApply, vectorUpdatesThatApply } from './conditional.js';

const PAYLOAD_FIELDS = ['payload', 'points', 'filter', 'shard_key', 'key'];

type OperationReader = (body: Record<string, unknown>, context: RouteContext) => Operation;

/** Registers the write routes. */
export function writeRoutes(router: Router, engine: Engine): void {
  const write = (method: string, path: string, read: OperationReader) =>
    router.on(method, path, async (context) => {
      const name = context.params.name!;
      engine.get(name);
      const op = read(objectBody(context.body ?? {}), context);
      const seq = await engine.write(name, op);
      const wait = context.query.get('wait') === 'true';
      return { operation_id: seq, status: wait ? 'completed' : 'acknowledged' };
    });

  write('PUT', '/collections/{name}/points', (body, context) => {
    expectFields(body, [
      body.batch === undefined ? 'points' : 'batch',
      'shard_key',
      'update_filter',
      'update_mode',
    ]);
    const collection = engine.get(context.params.name!);
    const { size, distance } = collection.config;
    const points = readUpsertPoints(body, size, distance);
    const filter = parseFilter(body.update_filter, 'update_filter');
    const mode = readVariant(
      body,
      'update_mode',
      ['upsert', 'insert_only', 'update_only'] as const,
      'upsert',
    );
    return { type: 'upsert', points: upsertsThatApply(collection, points, filter, mode) };
  });

  write('POST', '/collections/{name}/points/delete', (body) => {
    expectFields(body, [body.filter === undefined ? 'points' : 'filter', 'shard_key']);
    return { type: 'delete_points', selector: readSelector(body) };
  });

  write('PUT', '/collections/{name}/points/vectors', (body, context) => {
    expectFields(body, ['points', 'shard_key', 'update_filter']);
    const collection = engine.get(context.params.name!);
    const { size, distance } = collection.config;
    const points = readVectorUpdates(body, size, distance);
    const filter = parseFilter(body.update_filter, 'update_filter');
    return { type: 'update_vectors', points: vectorUpdatesThatApply(collection, points, filter) };
  });

  const payloadOf = (body: Record<string, unknown>) => {
    const payload = readPayload(optional(body, 'payload'), 'payload');
    if (!payload) throw formatError('missing field `payload`');
    return payload;
  };

  write('POST', '/collections/{name}/points/payload', (body) => {
    expectFields(body, PAYLOAD_FIELDS);
    const key = optional(body, 'key');
    if (key !== undefined) parseJsonPath(key);
    return {
      type: 'set_payload',
      selector: readSelector(body),
      payload: payloadOf(body),
      ...(typeof key === 'string' ? { key } : {}),
    };
  });

  write('PUT', '/collections/{name}/points/payload', (body) => {
    expectFields(body, PAYLOAD_FIELDS);
    // Qdrant ignores `key` when overwriting; it is still read, so a bad one is refused.
    if (optional(body, 'key') !== undefined) parseJsonPath(body.key);
    return {
      type: 'overwrite_payload',
      selector: readSelector(body),
      payload: payloadOf(body),
    };
  });

  write('POST', '/collections/{name}/points/payload/delete', (body) => {
    expectFields(body, ['keys', 'points', 'filter', 'shard_key']);
    const keys = optional(body, 'keys');
    if (!Array.isArray(keys)) throw formatError('missing field `keys`');
    keys.forEach((key) => parseJsonPath(key));
    return { type: 'delete_payload', selector: readSelector(body), keys: keys as string[] };
  });

  write('POST', '/collections/{name}/points/payload/clear', (body) => {
    expectFields(body, [body.filter === undefined ? 'points' : 'filter', 'shard_key']);
    return { type: 'clear_payload', selector: readSelector(body) };
  });

  write('PUT', '/collections/{name}/index', (body) => {
    expectFields(body, ['field_name', 'field_schema']);
    const field = optional(body, 'field_name');
    if (typeof field !== 'string') throw formatError('missing field `field_name`');
    parseJsonPath(field);
    const schema = optional(body, 'field_schema');
    if (schema === undefined) throw formatError('missing field `field_schema`');
    return { type: 'create_index', field, schema: readIndexSchema(schema) };
  });

  write('DELETE', '/collections/{name}/index/{field}', (_body, context) => {
    const field = context.params.field!;
    parseJsonPath(field);
    return { type: 'delete_index', field };
  });
}

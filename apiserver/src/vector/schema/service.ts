/**
 * Payload schemas of collections: reading and writing them (store.ts),
 * inferring one from stored points, reporting conformance, and the checks
 * that enforce one on new writes. The collection is always resolved for the
 * caller first (context.ts), so one account never reaches another's schema.
 */
import type { Collection } from 'mongodb';
import { SchemaNotDefined, VectorValidationError } from '../../errors/catalogue.js';
import type { VectorCollectionDoc } from '../collections/model.js';
import type { Engines } from '../engines.js';
import { engineFailure } from '../engine-errors.js';
import { TtlCache } from '../../../../common/ttl-cache.js';
import { ConformanceTally, type ConformanceReport } from './conformance.js';
import { WriteCheck } from './enforcement.js';
import { SchemaInference, type FieldSummary } from './infer.js';
import type { PayloadSchemaDoc, StoredSchema } from './model.js';
import { predictPayload, type PayloadWrite } from './payload-writes.js';
import type { AnalyzeRequest, ConformanceRequest, IfMatch, PutRequest } from './rules.js';
import {
  engineScroll,
  scanPoints,
  withoutInternalKeys,
  type PointId,
  type PointPayload,
  type ScanOutcome,
} from './scan.js';
import { SchemaStore } from './store.js';
import { compilePayloadSchema, ValidatorCache } from './validator.js';

/** Bounds of the schema work (tests shorten the budget). */
export interface SchemaLimits {
  /** Time an analyze or conformance scan runs before it stops with `exact: false`. */
  scanBudgetMs: number;
  /** Points per engine request; 100 payloads of 64 KB stay under the 10 MB response cap. */
  pageSize: number;
  /** Points a merge by filter is checked on at most; strict refuses a filter matching more. */
  maxTargetedPoints: number;
}

/** The defaults. */
export const SCHEMA_LIMITS: SchemaLimits = {
  scanBudgetMs: 10_000,
  pageSize: 100,
  maxTargetedPoints: 10_000,
};

/**
 * How long the schema in force is reused by the write path. A schema changed
 * through this process applies to the next write at once (the entry is
 * dropped); one changed through another replica applies within this time.
 */
const IN_FORCE_TTL_MS = 2_000;

/** What analyze answers. */
export interface AnalyzeResult {
  schema: Record<string, unknown>;
  fields: FieldSummary[];
  scan: ScanOutcome;
}

/** Payload schema operations of collections. */
export class SchemaService {
  private readonly store: SchemaStore;
  private readonly validators = new ValidatorCache();
  private readonly inForce = new TtlCache<StoredSchema | null>(IN_FORCE_TTL_MS);
  private readonly limits: SchemaLimits;

  constructor(
    docs: Collection<PayloadSchemaDoc>,
    private readonly engines: Engines,
    limits: Partial<SchemaLimits> = {},
    now: () => number = () => Date.now(),
  ) {
    this.store = new SchemaStore(docs, now);
    this.limits = { ...SCHEMA_LIMITS, ...limits };
  }

  /** The schema in force, or null. */
  current(collection: VectorCollectionDoc): Promise<StoredSchema | null> {
    return this.store.current(collection);
  }

  /** The schema in force, or 404 SCHEMA_NOT_DEFINED. */
  async get(collection: VectorCollectionDoc): Promise<StoredSchema> {
    const stored = await this.store.current(collection);
    if (!stored) throw notDefined(collection);
    return stored;
  }

  /** Stores a new schema version (after checking it compiles), compare-and-set with `ifMatch`. */
  async put(
    collection: VectorCollectionDoc,
    input: PutRequest,
    ifMatch: IfMatch | null,
  ): Promise<StoredSchema> {
    // Compiled before anything is stored: an unusable schema is refused with a 400.
    const validator = compilePayloadSchema(input.schema);
    const stored = (await this.store.write(collection, input, ifMatch))!;
    this.validators.set(collection._id, stored.etag, validator);
    this.inForce.delete(inForceKey(collection));
    return stored;
  }

  /** Removes the schema (404 SCHEMA_NOT_DEFINED when there is none). */
  async remove(collection: VectorCollectionDoc, ifMatch: IfMatch | null): Promise<void> {
    await this.get(collection);
    await this.store.write(collection, null, ifMatch);
    this.inForce.delete(inForceKey(collection));
  }

  /** Infers a schema from a prefix of the collection's points. */
  async analyze(collection: VectorCollectionDoc, input: AnalyzeRequest): Promise<AnalyzeResult> {
    const inference = new SchemaInference();
    const scan = await scanPoints(
      engineScroll(this.engines.forDoc(collection).engine, collection.engineName),
      {
        maxPoints: input.sampleSize,
        budgetMs: this.limits.scanBudgetMs,
        pageSize: this.limits.pageSize,
      },
      (point) => inference.add(point.payload),
    );
    return { schema: inference.schema(), fields: inference.fields(), scan };
  }

  /** Checks stored points against the schema in force (read-only). */
  async conformance(
    collection: VectorCollectionDoc,
    input: ConformanceRequest,
  ): Promise<{ schema: StoredSchema; report: ConformanceReport }> {
    const schema = await this.get(collection);
    const validate = this.validators.get(collection._id, schema.etag, schema.schema);
    const tally = new ConformanceTally(input.maxExamples);
    const scan = await scanPoints(
      engineScroll(this.engines.forDoc(collection).engine, collection.engineName),
      {
        maxPoints: input.mode === 'full' ? Infinity : input.sampleSize,
        budgetMs: this.limits.scanBudgetMs,
        pageSize: this.limits.pageSize,
      },
      (point) => tally.add(point.id, validate(point.payload)),
    );
    return { schema, report: tally.report(scan) };
  }

  /** The check of an upsert: each streamed point's payload goes through it. */
  async writeCheck(collection: VectorCollectionDoc): Promise<WriteCheck> {
    const schema = await this.inForceFor(collection);
    if (!schema || schema.enforcementMode === 'off') return WriteCheck.none();
    const validate = this.validators.get(collection._id, schema.etag, schema.schema);
    return new WriteCheck(schema.enforcementMode, validate, schema.version);
  }

  /**
   * The check of a payload set (merge) or overwrite, already run: the payload
   * each targeted point will hold is predicted and checked, and in strict mode
   * a violation is thrown here, before the write is forwarded. A merge reads
   * the targeted points' current payloads first (by id, or by filter up to
   * `maxTargetedPoints`); another write landing between that read and this
   * write is not seen.
   */
  async payloadWriteCheck(
    collection: VectorCollectionDoc,
    write: PayloadWrite,
  ): Promise<WriteCheck> {
    const check = await this.writeCheck(collection);
    if (!check.active) return check;
    const sent = withoutInternalKeys(write.payload);
    if (write.kind === 'overwrite') {
      check.point(undefined, sent);
    } else {
      for (const point of await this.targetedPoints(collection, write, check.mode === 'strict')) {
        check.point(point.id, predictPayload(point.payload, sent, write.key));
      }
    }
    check.settle();
    return check;
  }

  private async targetedPoints(
    collection: VectorCollectionDoc,
    write: PayloadWrite,
    strict: boolean,
  ): Promise<PointPayload[]> {
    const found: PointPayload[] = [];
    if (Array.isArray(write.points)) {
      const ids = write.points as PointId[];
      for (let i = 0; i < ids.length; i += this.limits.pageSize) {
        found.push(...(await this.retrieve(collection, ids.slice(i, i + this.limits.pageSize))));
      }
      return found;
    }
    const max = this.limits.maxTargetedPoints;
    const scan = await scanPoints(
      engineScroll(this.engines.forDoc(collection).engine, collection.engineName, write.filter),
      { maxPoints: max, budgetMs: Infinity, pageSize: this.limits.pageSize },
      (point) => found.push(point),
    );
    if (!scan.exact && strict) {
      throw new VectorValidationError(
        `The filter selects more than ${max} points; a strict payload schema checks every point a merge changes, so select fewer.`,
        { fields: { field: 'filter', max } },
      );
    }
    return found;
  }

  private async retrieve(collection: VectorCollectionDoc, ids: PointId[]): Promise<PointPayload[]> {
    const engine = this.engines.forDoc(collection).engine;
    const res = await engine.send('POST', `/collections/${collection.engineName}/points`, {
      ids,
      with_payload: true,
      with_vector: false,
    });
    if (res.status >= 400) throw engineFailure(res);
    const points = (JSON.parse(res.text) as { result?: { id: PointId; payload?: unknown }[] })
      .result;
    return (points ?? []).map((p) => ({ id: p.id, payload: withoutInternalKeys(p.payload) }));
  }

  private async inForceFor(collection: VectorCollectionDoc): Promise<StoredSchema | null> {
    const key = inForceKey(collection);
    const cached = this.inForce.get(key);
    if (cached !== undefined) return cached;
    const stored = await this.store.current(collection);
    this.inForce.set(key, stored);
    return stored;
  }
}

/** The cache key of a collection: a re-created collection of the same name is another. */
function inForceKey(collection: VectorCollectionDoc): string {
  return `${collection._id}:${collection.createdAt.getTime()}`;
}

function notDefined(collection: VectorCollectionDoc): SchemaNotDefined {
  return new SchemaNotDefined(`Collection ${collection.name} has no payload schema.`, {
    fields: { collection_name: collection.name },
  });
}

/**
 * One collection in memory: its points, payload indexes and vector index, and the
 * application of write operations with Qdrant's semantics. Reads live in search/.
 * Persistence is the engine's job: it logs each operation once {@link apply} has applied it.
 * Writes that retire slots may vacuum them (store/vacuum.ts) once they are done.
 */
import { badRequest } from '../errors.js';
import { matchesFilter } from '../filter/evaluate.js';
import type { FilterContext } from '../filter/evaluate.js';
import { parseFilter } from '../filter/parse.js';
import type { TokenizerConfig } from '../filter/text.js';
import type { Filter } from '../filter/types.js';
import { FieldIndex } from '../index/payload-index.js';
import type { IndexSchema } from '../index/payload-index.js';
import { VectorIndex } from '../index/vector-index.js';
import type { VectorIndexOptions } from '../index/vector-index.js';
import { mergeInto, removeAtPath, setAtPath, formatJsonPath } from '../../../common/json-path.js';
import { parseJsonPath } from '../json-path.js';
import type { JsonObject } from '../../../common/json-path.js';
import type { PointId } from '../point-id.js';
import type { CollectionConfig } from './collection-config.js';
import type { Operation, PointSelector } from './operations.js';
import { ABSENT_PAYLOAD, PointStore } from './point-store.js';
import { maybeVacuum } from './vacuum.js';

/** Index settings for a collection's vector index, minus what the config fixes. */
export type IndexPolicy = Pick<VectorIndexOptions, 'threshold' | 'idleMs' | 'onError'>;

/** A collection. */
export class Collection implements FilterContext {
  readonly points: PointStore;
  readonly fieldIndexes = new Map<string, FieldIndex>();
  readonly vectorIndex: VectorIndex;
  /** Sequence number of the last operation applied. */
  lastSeq = 0;

  constructor(
    readonly config: CollectionConfig,
    policy: IndexPolicy,
  ) {
    this.points = new PointStore(config.size, config.distance);
    this.vectorIndex = new VectorIndex(this.points, config.distance, {
      ...policy,
      m: config.hnsw.m,
      efConstruct: config.hnsw.efConstruct,
      ...(config.quantization ? { quantization: config.quantization } : {}),
      afterBuild: () => maybeVacuum(this),
    });
  }

  /** The text index settings of a key, for `match.text`. */
  tokenizerFor(key: string): TokenizerConfig | undefined {
    return this.fieldIndexes.get(key)?.schema.tokenizer;
  }

  /** Whether a live slot passes a filter. */
  slotMatches(slot: number, filter: Filter): boolean {
    const { points } = this;
    return matchesFilter(filter, points.ids[slot]!, points.payloads[slot]!, this);
  }

  /**
   * Live slots an operation's selector names: ids that exist, or those the filter passes;
   * and the first listed id that does not exist.
   */
  private selectSlots(selector: PointSelector): { slots: number[]; missing?: PointId } {
    const { points } = this;
    if ('ids' in selector) {
      const slots: number[] = [];
      let missing: PointId | undefined;
      for (const id of selector.ids) {
        const slot = points.slotOf(id);
        if (slot !== undefined) slots.push(slot);
        else missing ??= id;
      }
      return missing === undefined ? { slots } : { slots, missing };
    }
    const filter = parseFilter(selector.filter);
    const slots: number[] = [];
    for (const slot of points.liveSlots()) {
      if (!filter || this.slotMatches(slot, filter)) slots.push(slot);
    }
    return { slots };
  }

  private reindex(slot: number, payload: JsonObject | undefined): void {
    for (const index of this.fieldIndexes.values()) {
      index.remove(slot);
      if (payload) index.add(slot, payload);
    }
  }

  /**
   * Stores a point in a new slot and moves its payload index entries there. The vector is
   * stored first: when it does not fit, nothing has changed.
   */
  private rewrite(id: PointId, vector: Float32Array, payload: JsonObject, seq: number): void {
    const previous = this.points.slotOf(id);
    const slot = this.points.put(id, vector, payload, seq);
    if (previous !== undefined) this.reindex(previous, undefined);
    this.reindex(slot, payload);
  }

  /** After writes that took new slots: reclaim retired ones, then let the index catch up. */
  private afterSlotWrites(): void {
    // Before noteWrite: a build it starts would hold the slots until it ends.
    maybeVacuum(this);
    this.vectorIndex.noteWrite();
  }

  /** Edits the payloads of the selected points; returns the first listed id that is missing. */
  private editPayloads(
    selector: PointSelector,
    seq: number,
    edit: (payload: JsonObject) => JsonObject,
  ): PointId | undefined {
    const { slots, missing } = this.selectSlots(selector);
    const { points } = this;
    for (const slot of slots) {
      const payload = edit(points.payloads[slot]!);
      points.payloads[slot] = payload;
      points.versions[slot] = seq;
      this.reindex(slot, payload);
    }
    return missing;
  }

  /**
   * Applies one operation. When a listed point is missing, the operation is applied to
   * the listed points that exist and the first missing id is returned, for the caller to
   * answer Qdrant's 404 with, as Qdrant does; replaying the same operation from the log
   * reproduces the same state. Throws for an operation that cannot be applied (the vector
   * memory is full, a payload too deep to copy) before changing any point.
   */
  apply(op: Operation, seq: number): PointId | undefined {
    this.lastSeq = seq;
    const { points } = this;
    switch (op.type) {
      case 'upsert': {
        // Room for every vector first, so a write that does not fit changes nothing.
        points.vectors.reserve(op.points.length);
        try {
          for (const p of op.points) this.rewrite(p.id, p.vector, p.payload ?? {}, seq);
        } finally {
          this.afterSlotWrites();
        }
        return undefined;
      }
      case 'update_vectors': {
        points.vectors.reserve(op.points.length);
        let missing: PointId | undefined;
        try {
          for (const p of op.points) {
            const previous = points.slotOf(p.id);
            if (previous === undefined) missing ??= p.id;
            else this.rewrite(p.id, p.vector, points.payloads[previous]!, seq);
          }
        } finally {
          this.afterSlotWrites();
        }
        return missing;
      }
      case 'delete_points':
        for (const slot of this.selectSlots(op.selector).slots) {
          this.reindex(slot, undefined);
          points.remove(points.ids[slot]!);
        }
        maybeVacuum(this);
        return undefined;
      case 'set_payload': {
        const path = op.key === undefined ? undefined : parseJsonPath(op.key);
        return this.editPayloads(op.selector, seq, (current) => {
          const copy = structuredClone(op.payload);
          if (current === ABSENT_PAYLOAD && !path) return copy;
          const payload = current === ABSENT_PAYLOAD ? {} : current;
          if (path) setAtPath(payload, path, copy);
          else mergeInto(payload, copy);
          return payload;
        });
      }
      case 'overwrite_payload':
        // Qdrant ignores `key` when overwriting: the payload is replaced whole.
        return this.editPayloads(op.selector, seq, () => structuredClone(op.payload));
      case 'delete_payload': {
        const paths = op.keys.map(parseJsonPath);
        return this.editPayloads(op.selector, seq, (payload) => {
          for (const path of paths) removeAtPath(payload, path);
          return payload;
        });
      }
      case 'clear_payload':
        return this.editPayloads(op.selector, seq, () => ABSENT_PAYLOAD);
      case 'create_index': {
        const path = parseJsonPath(op.field);
        const key = formatJsonPath(path);
        const index = new FieldIndex(key, path, op.schema);
        for (const slot of points.liveSlots()) index.add(slot, points.payloads[slot]!);
        this.fieldIndexes.set(key, index);
        return undefined;
      }
      case 'delete_index':
        this.fieldIndexes.delete(formatJsonPath(parseJsonPath(op.field)));
        return undefined;
    }
  }

  /** The range index `order_by` needs on a key, or Qdrant's 400. */
  rangeIndex(key: string): FieldIndex {
    const index = this.fieldIndexes.get(formatJsonPath(parseJsonPath(key)));
    if (!index || !index.isRange) {
      throw badRequest(
        `No range index for \`order_by\` key: \`${key}\`. Please create one to use \`order_by\`. ` +
          'Check https://qdrant.tech/documentation/concepts/indexing/#payload-index to see which payload schemas support Range conditions',
      );
    }
    return index;
  }

  /** Index definitions, for persistence and `payload_schema`. */
  indexSchemas(): { field: string; schema: IndexSchema; points: number }[] {
    return [...this.fieldIndexes.values()].map((i) => ({
      field: i.key,
      schema: i.schema,
      points: i.pointsCount,
    }));
  }

  /** Stops background indexing. */
  close(): void {
    this.vectorIndex.close();
    this.points.vectors.close();
  }
}

/**
 * Payload field indexes. Each one keeps the values of one key per slot and answers the
 * conditions Qdrant's index of that type answers: equality for keyword, integer, bool
 * and uuid, keyword prefix and substring by a scan of the keyword index's values, ranges
 * over a sorted copy for integer, float and datetime. The answer is a candidate set the
 * full filter is then checked on, which is exactly how Qdrant uses an index (its
 * candidates are limited to the values the index holds, e.g. an integer index never
 * yields a float). {@link FieldIndex.markMatches} instead answers a condition exactly,
 * where the index holds every value that can pass it, for index/filter-answers.ts. Geo
 * and text indexes answer nothing here; a text index changes how `match.text` tokenizes
 * (see filter/text.ts).
 */
import { parseDatetime } from '../filter/datetime.js';
import { asksBesidesMatchAndRange } from '../filter/evaluate.js';
import type { TokenizerConfig } from '../filter/text.js';
import type { FieldCondition, Match, Range } from '../filter/types.js';
import { getValues } from '../../../common/json-path.js';
import type { JsonObject, JsonPath } from '../../../common/json-path.js';
import { normaliseUuid } from '../point-id.js';

/** Qdrant's payload schema types. */
export type PayloadSchemaType =
  'keyword' | 'integer' | 'float' | 'geo' | 'text' | 'bool' | 'datetime' | 'uuid';

/** An index definition as stored and reported. */
export interface IndexSchema {
  type: PayloadSchemaType;
  /** The object form's parameters when one was given, reported back in `payload_schema`. */
  params?: Record<string, unknown>;
  tokenizer?: TokenizerConfig;
}

type Key = string | number | boolean;

/** One field's index. */
export class FieldIndex {
  private readonly valuesBySlot = new Map<number, Key[]>();
  private readonly equality = new Map<Key, Set<number>>();
  /**
   * Slots of an integer index holding a number that is not an integer: a numeric range
   * passes them when evaluated, but the index does not hold the value.
   */
  private readonly fractions = new Set<number>();
  /**
   * A range index's value of each slot holding exactly one, NaN for the others (none, or
   * several: those are in `manyValued`), so a range is answered for every slot in one pass
   * over a typed array whether or not the sorted copy is current.
   */
  private single = new Float64Array(0);
  private readonly manyValued = new Set<number>();
  private sortedValues = new Float64Array(0);
  private sortedSlots = new Int32Array(0);
  private sortedDirty = true;

  constructor(
    readonly key: string,
    readonly path: JsonPath,
    readonly schema: IndexSchema,
  ) {}

  /** Slots with at least one indexed value (Qdrant's `points` in `payload_schema`). */
  get pointsCount(): number {
    return this.valuesBySlot.size;
  }

  /** Whether range conditions and `order_by` can use this index. */
  get isRange(): boolean {
    const t = this.schema.type;
    if (t === 'integer') return this.schema.params?.range !== false;
    return t === 'float' || t === 'datetime';
  }

  private get isLookup(): boolean {
    const t = this.schema.type;
    if (t === 'integer') return this.schema.params?.lookup !== false;
    return t === 'keyword' || t === 'bool' || t === 'uuid';
  }

  /** The values of a payload this index holds, array elements flattened one level. */
  private extract(payload: JsonObject): Key[] {
    const out: Key[] = [];
    for (const value of getValues(payload, this.path)) {
      if (Array.isArray(value)) for (const v of value) this.pushValue(v, out);
      else this.pushValue(value, out);
    }
    return out;
  }

  private pushValue(value: unknown, out: Key[]): void {
    switch (this.schema.type) {
      case 'keyword':
      case 'text':
        if (typeof value === 'string') out.push(value);
        return;
      case 'integer':
        if (typeof value === 'number' && Number.isInteger(value)) out.push(value);
        return;
      case 'float':
        if (typeof value === 'number') out.push(value);
        return;
      case 'bool':
        if (typeof value === 'boolean') out.push(value);
        return;
      case 'datetime': {
        const micros = typeof value === 'string' ? parseDatetime(value) : undefined;
        if (micros !== undefined) out.push(micros);
        return;
      }
      case 'uuid': {
        const uuid = typeof value === 'string' ? normaliseUuid(value) : undefined;
        if (uuid !== undefined) out.push(uuid);
        return;
      }
      case 'geo':
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
          const { lon, lat } = value as { lon?: unknown; lat?: unknown };
          if (typeof lon === 'number' && typeof lat === 'number') out.push(`${lon},${lat}`);
        }
        return;
    }
  }

  /** Indexes a slot's payload; a value repeated in an array is held once, as in Qdrant. */
  add(slot: number, payload: JsonObject): void {
    const values = [...new Set(this.extract(payload))];
    if (values.length > 0) this.insert(slot, values);
    if (this.schema.type === 'integer' && this.holdsFraction(payload)) this.fractions.add(slot);
  }

  private holdsFraction(payload: JsonObject): boolean {
    const fraction = (v: unknown) => typeof v === 'number' && !Number.isInteger(v);
    return getValues(payload, this.path).some((value) =>
      Array.isArray(value) ? value.some(fraction) : fraction(value),
    );
  }

  /**
   * Follows a vacuum: the values of slot `s` move to slot `map[s]`. Every indexed slot must
   * be kept (`map[s] >= 0`); the values are moved, not extracted again.
   */
  remap(map: Int32Array): void {
    const entries = [...this.valuesBySlot];
    const fractions = [...this.fractions];
    this.valuesBySlot.clear();
    this.equality.clear();
    this.fractions.clear();
    this.manyValued.clear();
    this.single.fill(NaN);
    this.sortedDirty = true;
    for (const slot of fractions) if (map[slot]! >= 0) this.fractions.add(map[slot]!);
    for (const [slot, values] of entries) {
      const to = map[slot]!;
      if (to < 0) throw new Error(`payload index ${this.key}: slot ${slot} was dropped`);
      this.insert(to, values);
    }
  }

  private insert(slot: number, values: Key[]): void {
    this.valuesBySlot.set(slot, values);
    if (this.isRange) {
      if (slot >= this.single.length) {
        const grown = new Float64Array(Math.max(1024, 2 * (slot + 1))).fill(NaN);
        grown.set(this.single);
        this.single = grown;
      }
      if (values.length === 1) this.single[slot] = values[0] as number;
      else this.manyValued.add(slot);
    }
    if (this.isLookup) {
      for (const v of values) {
        let set = this.equality.get(v);
        if (!set) this.equality.set(v, (set = new Set()));
        set.add(slot);
      }
    }
    this.sortedDirty = true;
  }

  /** Forgets a slot. */
  remove(slot: number): void {
    this.fractions.delete(slot);
    this.manyValued.delete(slot);
    if (slot < this.single.length) this.single[slot] = NaN;
    const values = this.valuesBySlot.get(slot);
    if (!values) return;
    this.valuesBySlot.delete(slot);
    if (this.isLookup) {
      for (const v of values) {
        const set = this.equality.get(v);
        set?.delete(slot);
        if (set?.size === 0) this.equality.delete(v);
      }
    }
    this.sortedDirty = true;
  }

  /** The sorted (value, slot) pairs, rebuilt after writes when a read needs them. */
  private sorted(): { values: Float64Array; slots: Int32Array } {
    if (this.sortedDirty) {
      const pairs: [number, number][] = [];
      for (const [slot, values] of this.valuesBySlot) {
        for (const v of values) pairs.push([v as number, slot]);
      }
      pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      this.sortedValues = Float64Array.from(pairs, (p) => p[0]);
      this.sortedSlots = Int32Array.from(pairs, (p) => p[1]);
      this.sortedDirty = false;
    }
    return { values: this.sortedValues, slots: this.sortedSlots };
  }

  /**
   * The slots that can satisfy the condition, or undefined when this index cannot answer it
   * (then the caller scans every point).
   */
  candidates(condition: FieldCondition): Set<number> | undefined {
    const match = condition.match;
    // A condition ORs its kinds, so an index answers only a condition of a single kind.
    const extra = asksBesidesMatchAndRange(condition);
    if (match && !condition.range && !extra && this.isLookup) {
      const t = this.schema.type;
      const fits = (v: unknown) =>
        t === 'keyword' || t === 'uuid'
          ? typeof v === 'string'
          : t === 'integer'
            ? typeof v === 'number'
            : typeof v === 'boolean';
      const keys = (v: Key) => (t === 'uuid' && typeof v === 'string' ? normaliseUuid(v) : v);
      if (match.kind === 'value' && fits(match.value)) {
        const key = keys(match.value);
        return new Set(key === undefined ? [] : this.equality.get(key));
      }
      if (match.kind === 'any') {
        const list = t === 'integer' ? match.integers : t === 'bool' ? null : match.strings;
        if (!list) return undefined;
        const out = new Set<number>();
        for (const v of list) {
          const key = keys(v);
          if (key !== undefined) for (const slot of this.equality.get(key) ?? []) out.add(slot);
        }
        return out;
      }
      if ((match.kind === 'prefix' || match.kind === 'substring') && t === 'keyword') {
        // The keyword index holds every string value, the only values these can match.
        const wanted = match.text;
        const out = new Set<number>();
        for (const [value, slots] of this.equality) {
          if (typeof value !== 'string') continue;
          const hit = match.kind === 'prefix' ? value.startsWith(wanted) : value.includes(wanted);
          if (hit) for (const slot of slots) out.add(slot);
        }
        return out;
      }
      return undefined;
    }
    const range = condition.range;
    if (range && !match && !extra && this.isRange) {
      if ((range.type === 'datetime') !== (this.schema.type === 'datetime')) return undefined;
      const { slots } = this.sorted();
      const [lo, hi] = this.rangeBounds(range);
      const out = new Set<number>();
      for (let i = lo; i < hi; i++) out.add(slots[i]!);
      return out;
    }
    return undefined;
  }

  /**
   * Marks `out[slot] = 1` for every slot passing the condition, exactly as evaluating it
   * would answer, and returns the slots it leaves undecided (a fraction under an integer
   * index's range); undefined when this index cannot answer the condition exactly. Only
   * the values evaluation can match are asked about, so unlike {@link candidates} the
   * answer is the filter's, not Qdrant's index's. A range reads the values by slot, not the
   * sorted copy: after a write, rebuilding that costs more than evaluating the points.
   */
  markMatches(condition: FieldCondition, out: Uint8Array): ReadonlySet<number> | undefined {
    const { match, range } = condition;
    if (asksBesidesMatchAndRange(condition) || Boolean(match) === Boolean(range)) return undefined;
    const t = this.schema.type;
    if (match) {
      const keys = this.lookupKeys(match);
      if (!keys) return undefined;
      for (const key of keys) for (const slot of this.equality.get(key) ?? []) out[slot] = 1;
      return NONE;
    }
    if (!range || !this.isRange || (range.type === 'datetime') !== (t === 'datetime')) {
      return undefined;
    }
    const { gt = -Infinity, gte = -Infinity, lt = Infinity, lte = Infinity } = range;
    const inRange = (x: number) => x > gt && x >= gte && x < lt && x <= lte;
    const { single } = this;
    const end = Math.min(single.length, out.length);
    // Inline comparisons: this runs once per filter, mostly before the JIT has optimised it.
    for (let slot = 0; slot < end; slot++) {
      const x = single[slot]!;
      if (x > gt && x >= gte && x < lt && x <= lte) out[slot] = 1;
    }
    for (const slot of this.manyValued) {
      if (this.valuesBySlot.get(slot)!.some((v) => inRange(v as number))) out[slot] = 1;
    }
    return this.fractions;
  }

  /**
   * The keys of the equality lookup a match passes on, when they are all its passing values
   * (evaluation compares like types, and this index holds every value of its type); else
   * undefined. A uuid index normalises its keys where evaluation compares strings as given.
   */
  private lookupKeys(match: Match): Iterable<Key> | undefined {
    const t = this.schema.type;
    if (!this.isLookup || t === 'uuid') return undefined;
    const ofType = (v: unknown) =>
      typeof v === (t === 'integer' ? 'number' : t === 'bool' ? 'boolean' : 'string');
    if (match.kind === 'value') return ofType(match.value) ? [match.value] : undefined;
    if (match.kind === 'any' && t === 'integer' && !match.strings?.size) {
      return match.integers ?? [];
    }
    if (match.kind === 'any' && t === 'keyword' && !match.integers?.size) {
      return match.strings ?? [];
    }
    if ((match.kind === 'prefix' || match.kind === 'substring') && t === 'keyword') {
      const wanted = match.text;
      return [...this.equality.keys()].filter(
        (v) =>
          typeof v === 'string' &&
          (match.kind === 'prefix' ? v.startsWith(wanted) : v.includes(wanted)),
      );
    }
    return undefined;
  }

  /** The positions in the sorted copy of the values a range passes. */
  private rangeBounds(range: Range): [number, number] {
    const { values } = this.sorted();
    let lo = 0;
    let hi = values.length;
    if (range.gte !== undefined) lo = lowerBound(values, range.gte, false);
    if (range.gt !== undefined) lo = Math.max(lo, lowerBound(values, range.gt, true));
    if (range.lte !== undefined) hi = lowerBound(values, range.lte, true);
    if (range.lt !== undefined) hi = Math.min(hi, lowerBound(values, range.lt, false));
    return [lo, hi];
  }

  /**
   * Slots with their values in value order, for `order_by`: a point appears once per
   * value it holds, as in Qdrant. Ascending starts at `from` and up, descending at `from`
   * and down.
   */
  *ordered(direction: 'asc' | 'desc', from?: number): Generator<{ value: number; slot: number }> {
    const { values, slots } = this.sorted();
    if (direction === 'asc') {
      const start = from === undefined ? 0 : lowerBound(values, from, false);
      for (let i = start; i < values.length; i++) yield { value: values[i]!, slot: slots[i]! };
    } else {
      const end = from === undefined ? values.length : lowerBound(values, from, true);
      for (let i = end - 1; i >= 0; i--) yield { value: values[i]!, slot: slots[i]! };
    }
  }
}

const NONE: ReadonlySet<number> = new Set();

/** First index whose value is >= x (or > x when `strict`). */
function lowerBound(values: Float64Array, x: number, strict: boolean): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (strict ? values[mid]! <= x : values[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The conformance report of `POST /schema/{c}/conformance`: how many scanned
 * points conform to the schema, which fields are responsible for the rest
 * (each offending point counts once, under the field of its first violation,
 * array indices folded: `tags[]`), and a capped sample of offending point ids
 * with the reason of each.
 */
import type { PointId, ScanOutcome } from './scan.js';
import { fieldFamily, type Violation } from './validator.js';

/** Responsible fields listed at most (the most frequent first). */
const MAX_FIELDS = 50;

/** One offending point of the sample. */
export interface OffendingPoint {
  id: PointId;
  field: string;
  message: string;
}

/** The report's body (the `scan` object comes from the scan itself). */
export interface ConformanceReport {
  scan: ScanOutcome;
  points_conforming: number;
  points_violating: number;
  /** Share of scanned points that conform; 1 for an empty scan. */
  conformance_ratio: number;
  fields: { field: string; points: number }[];
  offending_point_ids: PointId[];
  examples: OffendingPoint[];
}

/** Counts one scan's points as they are checked. */
export class ConformanceTally {
  private conforming = 0;
  private violating = 0;
  private readonly byField = new Map<string, number>();
  private readonly examples: OffendingPoint[] = [];

  constructor(private readonly maxExamples: number) {}

  /** Records one point's outcome (null: it conforms). */
  add(id: PointId, violation: Violation | null): void {
    if (!violation) {
      this.conforming++;
      return;
    }
    this.violating++;
    const family = fieldFamily(violation.field);
    this.byField.set(family, (this.byField.get(family) ?? 0) + 1);
    if (this.examples.length < this.maxExamples) {
      this.examples.push({ id, field: violation.field, message: violation.message });
    }
  }

  /** The report, given how the scan ended. */
  report(scan: ScanOutcome): ConformanceReport {
    const total = this.conforming + this.violating;
    return {
      scan,
      points_conforming: this.conforming,
      points_violating: this.violating,
      conformance_ratio: total === 0 ? 1 : this.conforming / total,
      fields: [...this.byField]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, MAX_FIELDS)
        .map(([field, points]) => ({ field, points })),
      offending_point_ids: this.examples.map((e) => e.id),
      examples: this.examples,
    };
  }
}

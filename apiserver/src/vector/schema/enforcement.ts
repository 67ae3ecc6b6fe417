/**
 * Enforcement of a payload schema on new writes. One {@link WriteCheck} per
 * write request: each payload the write will leave on a point is checked as
 * it becomes known; in `strict` mode {@link WriteCheck.settle} refuses, before
 * anything is forwarded to the engine, what was checked since the last settle;
 * in `warn` mode the write goes through and {@link surfaceWarnings} tells the
 * caller, in an `X-Schema-Warnings` header (how many points broke the schema)
 * and a `warnings` array in the body (the first 100, with point id, field and
 * message).
 */
import type { Context } from 'koa';
import { SchemaValidationFailed } from '../../errors/catalogue.js';
import type { EnforcementMode } from './model.js';
import type { PointId } from './scan.js';
import type { PayloadValidator } from './validator.js';

/** Violations reported at most, in a refusal's details or a response's warnings. */
export const MAX_REPORTED_VIOLATIONS = 100;

/** Header carrying the number of points of a `warn` write that broke the schema. */
export const WARNINGS_HEADER = 'X-Schema-Warnings';

/** One point whose payload breaks the schema. */
export interface PointViolation {
  /** Absent when one payload goes to every point a filter selects. */
  point_id?: PointId;
  field: string;
  message: string;
}

/** The schema checks of one write request. */
export class WriteCheck {
  private readonly pending: PointViolation[] = [];
  private pendingCount = 0;
  private checked = 0;
  private accepted = 0;
  private warned = 0;
  private readonly warnings: PointViolation[] = [];

  constructor(
    readonly mode: EnforcementMode,
    private readonly validate: PayloadValidator | null,
    /** The schema version the write is checked against. */
    readonly schemaVersion: number | null,
  ) {}

  /** A check that checks nothing (no schema, or `off`). */
  static none(): WriteCheck {
    return new WriteCheck('off', null, null);
  }

  /** Whether payloads are checked at all. */
  get active(): boolean {
    return this.mode !== 'off' && this.validate !== null;
  }

  /** Checks the payload one point will hold (attested keys left out). */
  point(id: PointId | undefined, payload: Record<string, unknown>): void {
    if (!this.active) return;
    this.checked++;
    const violation = this.validate!(payload);
    if (!violation) return;
    const entry = { ...(id === undefined ? {} : { point_id: id }), ...violation };
    if (this.mode === 'strict') {
      this.pendingCount++;
      if (this.pending.length < MAX_REPORTED_VIOLATIONS) this.pending.push(entry);
    } else {
      this.warned++;
      if (this.warnings.length < MAX_REPORTED_VIOLATIONS) this.warnings.push(entry);
    }
  }

  /**
   * Call before forwarding what was checked: in `strict` mode, throws 400
   * SCHEMA_VALIDATION_FAILED when any of it broke the schema. `details`
   * carries the violations (the first 100), how many points broke it, and how
   * many points of this request were written: by default those earlier
   * settles let through; `pointsWritten` when the caller writes them later.
   */
  settle(pointsWritten = this.accepted): void {
    if (this.pendingCount > 0) {
      throw new SchemaValidationFailed(
        `${this.pendingCount} point(s) break the collection's payload schema ` +
          `(version ${this.schemaVersion}): ${this.pending[0]!.message}.`,
        {
          fields: {
            details: {
              schema_version: this.schemaVersion,
              violations: this.pending,
              points_violating: this.pendingCount,
              points_written: pointsWritten,
            },
          },
        },
      );
    }
    this.accepted = this.checked;
  }

  /** Sets the warning header and adds `warnings` to the JSON body of a `warn` write. */
  surfaceWarnings(ctx: Context): void {
    if (this.mode !== 'warn' || !this.active) return;
    ctx.set(WARNINGS_HEADER, String(this.warned));
    if (this.warned === 0) return;
    const body = typeof ctx.body === 'string' ? (JSON.parse(ctx.body) as unknown) : ctx.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
    ctx.body = { ...body, warnings: this.warnings };
  }
}

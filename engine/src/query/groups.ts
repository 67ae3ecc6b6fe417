/**
 * Grouped queries (`points/query/groups`, `points/search/groups`) as Qdrant groups them:
 * points in the query's order, each put into the group of every distinct string or
 * integer value it has at `group_by` (points without one are skipped), each group keeping
 * its best `group_size` points; the groups whose best point ranks highest, best first.
 * Qdrant gets there with repeated searches; scoring every candidate once gives the
 * answer those searches converge to.
 */
import { parseJsonPath } from '../json-path.js';
import type { Collection } from '../store/collection.js';
import type { Scored, Stage } from './plan.js';
import { runStage } from './run.js';
import { distinctValues } from './values.js';

/** How to group. */
export interface Grouping {
  groupBy: string;
  groupSize: number;
  /** How many groups. */
  groups: number;
}

/** A group: its id (the value at `group_by`) and its best points. */
export interface Group {
  id: string | number;
  hits: Scored[];
}

/** Whether a value can name a group: a string or an integer. */
function isGroupId(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/** Runs a stage over every candidate and groups its points. */
export function groupStage(collection: Collection, stage: Stage, grouping: Grouping): Group[] {
  const path = parseJsonPath(grouping.groupBy);
  const all = runStage(collection, {
    ...stage,
    limit: Math.max(1, collection.points.liveCount),
    exact: true,
  });
  const groups = new Map<string, Group>();
  for (const hit of all) {
    const payload = collection.points.payloads[hit.slot]!;
    for (const value of distinctValues(payload, path)) {
      if (!isGroupId(value)) continue;
      const key = `${typeof value}:${value}`;
      let group = groups.get(key);
      if (!group) {
        if (groups.size === grouping.groups) continue;
        group = { id: value, hits: [] };
        groups.set(key, group);
      }
      if (group.hits.length < grouping.groupSize) group.hits.push(hit);
    }
  }
  return [...groups.values()];
}

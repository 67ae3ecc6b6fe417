/** The contract's collection status labels, as the dashboard words them. */

const LABELS: Record<string, string> = {
  active: 'active',
  creating: 'creating',
  unknown: 'unknown',
  DEGRADED: 'DEGRADED',
  region_change_in_progress: 'region change in progress',
  workspace_move_in_progress: 'workspace move in progress',
  region_change_rolled_back: 'region change rolled back',
  provisioning_stalled: 'provisioning stalled',
};

/** The label shown for a collection's `lifecycle_status` (absent: `unknown`). */
export function statusLabel(status: string | undefined | null): string {
  if (!status) return 'unknown';
  return LABELS[status] ?? status;
}

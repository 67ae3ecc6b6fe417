/** Shapes `AgentDeployment` resources into the contract's Deployment and Run records. */
import type { AgentDeployment } from '../../../crds/src/index.js';
import { sourceOf, type CodehostSource } from '../codehost/deployment-source.js';
import type { RegionalStatus } from './deployment-regions.js';

/** The Deployment record. */
export interface DeploymentRecord {
  id: string;
  agent_id: string;
  version: number;
  state: string;
  image_size_mb: number | null;
  regions: string[];
  pending_regions: string[];
  queue_position: number | null;
  is_ephemeral: boolean;
  is_serving: boolean;
  is_degraded: boolean;
  regions_total: number;
  regions_ready: number;
  pending_region_alert_stage: string | null;
  can_redeploy: boolean;
  can_rollback: boolean;
  cancellation_requested: boolean;
  cancellation_reason: string | null;
  created_at: string;
  started_at: string | null;
  deployed_at: string | null;
  error_message: string | null;
  warnings: string[];
  /** A push to a linked repository's commit; null for an upload. */
  source: CodehostSource | null;
}

const iso = (v: string | Date | undefined | null) =>
  v === undefined || v === null ? null : new Date(v).toISOString();

/** What the API server knows beside the resource: whether the code archive is still stored. */
export interface DeploymentFacts {
  archiveStored: boolean;
  /** What each region's operator observed of its copy (deployment-regions.ts); else the status's own fields. */
  regional?: RegionalStatus;
}

/** True when the version can be rolled back to: built once, not a one-shot run, code still stored, not serving now. */
export function canRollback(d: AgentDeployment, facts: DeploymentFacts): boolean {
  const state = d.status?.state ?? 'queued';
  return (
    !d.spec.ephemeral && Boolean(d.status?.builtAt) && facts.archiveStored && state !== 'active'
  );
}

/** The Deployment record of a resource. */
export function presentDeployment(d: AgentDeployment, facts: DeploymentFacts): DeploymentRecord {
  const status = d.status ?? {};
  const state = status.state ?? 'queued';
  const regional = facts.regional;
  const regions = regional?.regions ?? status.regions ?? d.spec.config.regions;
  return {
    id: d.metadata.name ?? '',
    agent_id: d.spec.agentId,
    version: d.spec.version,
    state,
    image_size_mb: status.imageSizeMb ?? null,
    regions,
    pending_regions: regional?.pendingRegions ?? status.pendingRegions ?? [],
    queue_position: state === 'queued' ? (status.queuePosition ?? null) : null,
    is_ephemeral: d.spec.ephemeral,
    is_serving: status.isServing ?? false,
    is_degraded: status.isDegraded ?? false,
    regions_total: regional?.regionsTotal ?? status.regionsTotal ?? regions.length,
    // One region's operator writes no per-region count: an active version is
    // ready in every region it serves.
    regions_ready:
      regional?.regionsReady ?? status.regionsReady ?? (state === 'active' ? regions.length : 0),
    pending_region_alert_stage: status.pendingRegionAlertStage ?? null,
    can_redeploy: !d.spec.ephemeral && facts.archiveStored,
    can_rollback: canRollback(d, facts),
    cancellation_requested: d.spec.cancellationRequested ?? false,
    cancellation_reason: d.spec.cancellationReason ?? null,
    created_at: iso(d.metadata.creationTimestamp) ?? new Date(0).toISOString(),
    started_at: iso(status.startedAt),
    deployed_at: iso(status.deployedAt),
    error_message: status.errorMessage ?? null,
    warnings: status.warnings ?? [],
    source: sourceOf(d),
  };
}

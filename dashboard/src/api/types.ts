/** The records of the public APIs the dashboard reads (the fields it uses). */

/** An offset-paged list of the control plane. */
export interface Page<T> {
  items: T[];
  total: number;
  next_offset: number | null;
}

/** GET /api/v1/auth/me. */
export interface Me {
  id: string;
  name: string;
  environment: 'live' | 'test';
  plan: string;
  home_region: string;
}

/** An Agent. */
export interface Agent {
  id: string;
  name: string;
  agent_type: 'service' | 'job';
  runtime: string;
  status: string;
  url: string | null;
  deployed: boolean;
  workspace_name: string | null;
  cron_schedule: string | null;
  cron_next_run_at: string | null;
  cron_paused: boolean;
  failure_message: string | null;
}

/** A Deployment. */
export interface Deployment {
  id: string;
  agent_id: string;
  version: number;
  state: string;
  queue_position: number | null;
  is_ephemeral?: boolean;
  can_rollback?: boolean;
  created_at: string;
  error_message: string | null;
}

/** A Run. */
export interface Run {
  id: string;
  trigger_source: string;
  state: string;
  created_at: string;
  duration_seconds: number | null;
  error_message: string | null;
}

/** A LogEntry and its page. */
export interface LogEntry {
  id: number;
  timestamp: string;
  stream: string;
  level: string;
  message: string;
}

/** A page of logs. */
export interface LogPage {
  items: LogEntry[];
  next_after_id: number;
  next_before_id: number | null;
  has_more: boolean;
}

/** A Secret record (never a value). */
export interface Secret {
  key: string;
  description: string | null;
  updated_at: string;
}

/** A Workspace. */
export interface Workspace {
  name: string;
  description: string | null;
  regions: string[];
}

/** A region-change operation. */
export interface Operation {
  operation_id: string;
  state: string;
  from_regions: string[];
  to_regions: string[];
  progress: {
    agents: { name: string; state: string }[];
    collections: { name: string; state: string; points_copied: number }[];
  };
  error: unknown;
}

/** A collection as the vector plane presents it. */
export interface Collection {
  name: string;
  vectors: { size: number; distance: string };
  description?: string | null;
  regions?: string[];
  workspace?: string;
  lifecycle_status?: string;
  points_count?: number | null;
}

/** A point as the engine returns it. */
export interface Point {
  id: string | number;
  score?: number;
  payload?: Record<string, unknown> | null;
}

/** GET /api/v1/usage/summary (the parts the chart uses). */
export interface UsageSummary {
  period: { from: string; to: string };
  limits: { metric: string; used: number; limit: number | null; exceeded: boolean }[];
}

/**
 * Usage events as MongoDB keeps them: one document per thing the platform
 * did for an account (a machine that ran, a run, a build) or per minute of
 * requests of one kind to one agent (requests are counted, then written as
 * one event per minute). Summaries add them up in the database.
 */
import type { Environment } from '../accounts/model.js';

/** What was metered. */
export const USAGE_KINDS = [
  /** Seconds a service machine or a run's machine ran, times its memory. */
  'compute',
  /** A run of a job (or of a service's run route), with its seconds. */
  'run',
  /** A build of a deployment, with its seconds. */
  'build',
  /** Requests through the edge to an agent's address, with bytes in and out. */
  'edge_request',
  /** Authenticated control-plane requests. */
  'control_request',
  /** Authenticated vector-plane requests. */
  'vector_request',
  /** A sample of the vector storage the account holds (MB); summed as its peak. */
  'vector_storage',
] as const;
/** One of {@link USAGE_KINDS}. */
export type UsageKind = (typeof USAGE_KINDS)[number];

/** Kinds counted per request and coalesced into one event per minute. */
export const REQUEST_KINDS: readonly UsageKind[] = [
  'edge_request',
  'control_request',
  'vector_request',
];

/** One usage event. */
export interface UsageEventDoc {
  /**
   * Deterministic where the thing has an identity (`run:<deployment id>`,
   * `compute:<machine>:<start ms>`), so a report sent twice is stored once;
   * otherwise random.
   */
  _id: string;
  accountId: string;
  environment: Environment;
  /** Null for requests no agent made or received (an account key's control-plane calls). */
  agentId: string | null;
  kind: UsageKind;
  /** When it ended (or the minute its requests were counted in); what periods select on. */
  at: Date;
  /** When it began; equals `at` for counts. */
  startedAt: Date;
  /** How many: 1 for a machine, run or build, the requests of the minute for request kinds. */
  count: number;
  /** Wall seconds between start and stop (compute, run, build); 0 otherwise. */
  seconds: number;
  /** Memory of the machine (compute); 0 otherwise. */
  memoryMb: number;
  /** seconds × memoryMb (compute); 0 otherwise. */
  mbSeconds: number;
  /** Bytes in and out (edge requests); 0 otherwise. */
  bytes: number;
  /** Vector storage sampled (vector_storage); 0 otherwise. */
  storageMb: number;
  /** The deployment (version or run) it belongs to, when one. */
  deploymentId: string | null;
  recordedAt: Date;
}

/** What a meter hands the writer: the event without its bookkeeping. */
export type UsageEventInput = Pick<
  UsageEventDoc,
  'accountId' | 'environment' | 'agentId' | 'kind'
> &
  Partial<Omit<UsageEventDoc, 'accountId' | 'environment' | 'agentId' | 'kind' | 'recordedAt'>>;

/** The document of `input`, with defaults filled in. */
export function usageEventDoc(input: UsageEventInput, id: string, now: Date): UsageEventDoc {
  const at = input.at ?? now;
  const seconds = input.seconds ?? 0;
  const memoryMb = input.memoryMb ?? 0;
  return {
    _id: input._id ?? id,
    accountId: input.accountId,
    environment: input.environment,
    agentId: input.agentId,
    kind: input.kind,
    at,
    startedAt: input.startedAt ?? at,
    count: input.count ?? 1,
    seconds,
    memoryMb,
    mbSeconds: input.mbSeconds ?? seconds * memoryMb,
    bytes: input.bytes ?? 0,
    storageMb: input.storageMb ?? 0,
    deploymentId: input.deploymentId ?? null,
    recordedAt: now,
  };
}

/**
 * Leader election on a `coordination.k8s.io/v1` Lease, after client-go's
 * `leaderelection`: several operator replicas may run, exactly one reconciles.
 *
 * Safety comes from two rules. Every write carries the resourceVersion it read, so of
 * two candidates racing on the same record one gets 409 and loses. And a leader that
 * cannot renew steps down after `renewDeadlineMs`, which is shorter than the lease:
 * it stops acting before anyone else may start, better idle than two leaders.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  CoordinationV1Api,
  V1MicroTime,
  type KubeConfig,
  type V1Lease,
  type V1LeaseSpec,
} from '@kubernetes/client-node';
import { createLogger, type Logger } from '../logger.js';

/** Options of a {@link LeaderElector}. */
export interface LeaderElectorOptions {
  kubeConfig: KubeConfig;
  /** Namespace and name of the Lease (created when missing). */
  namespace: string;
  name: string;
  /** Unique per process; default `hostname_pid_random`. */
  identity?: string;
  /** How long a lease stays valid without renewal (default 15). */
  leaseDurationSeconds?: number;
  /** How often the leader renews (default a third of the lease). */
  renewIntervalMs?: number;
  /**
   * How long the leader keeps leading without a successful renewal before it steps
   * down (default two thirds of the lease). Must be shorter than the lease, so the
   * leader has stopped before another candidate can take over.
   */
  renewDeadlineMs?: number;
  /** How often a candidate, or a leader whose renewal failed, tries again (default 2 s). */
  retryPeriodMs?: number;
  /**
   * Called when this process becomes the leader. `signal` aborts when it stops leading;
   * stop all work then. May be called again after a later re-election.
   */
  onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /**
   * Called once when a term ends, after `signal` aborted. `stop()` waits for the promise
   * before releasing the lease, so the next leader starts only after this one's work
   * has stopped: return it from e.g. `queue.stop()`.
   */
  onStoppedLeading?: () => void | Promise<void>;
  /** Called when the observed holder changes (an empty string when released). */
  onNewLeader?: (identity: string) => void;
  /** Called when an attempt to take or renew the lease fails (it is tried again). */
  onAttemptFailed?: (err: unknown) => void;
  logger?: Logger;
}

type Attempt = 'held' | 'lost';

/** The numeric HTTP status of a client-node `ApiException`, if `err` is one. */
function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** Rejects with a timeout error when `promise` takes longer than `ms`. */
async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Campaigns for a Lease and calls back when leadership starts and stops. A candidate
 * takes the lease when it is missing, released (empty holder), already its own, or
 * expired. "Expired" is judged as client-go does, by this process's monotonic clock: the
 * record has not changed for `leaseDurationSeconds` since this process first saw it.
 * Comparing the holder's `renewTime` with our wall clock instead would let a skewed
 * clock steal a live lease. The cost: after a crash (no release) a new candidate waits one
 * lease duration.
 *
 * After losing leadership the elector campaigns again; an operator that prefers to exit
 * does so from `onStoppedLeading`.
 */
export class LeaderElector {
  /** This candidate's holder identity. */
  readonly identity: string;
  private readonly api: CoordinationV1Api;
  private readonly namespace: string;
  private readonly name: string;
  private readonly leaseDurationSeconds: number;
  private readonly renewIntervalMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly options: LeaderElectorOptions;
  private readonly logger: Logger;

  private loop: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  private leading = false;
  private term: AbortController | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private windingDown: Promise<void> | undefined;
  private observedResourceVersion: string | undefined;
  private observedAt = 0;
  private observedHolder: string | undefined;

  constructor(options: LeaderElectorOptions) {
    this.options = options;
    this.api = options.kubeConfig.makeApiClient(CoordinationV1Api);
    this.namespace = options.namespace;
    this.name = options.name;
    this.identity =
      options.identity ?? `${hostname()}_${process.pid}_${randomBytes(4).toString('hex')}`;
    this.leaseDurationSeconds = options.leaseDurationSeconds ?? 15;
    const leaseMs = this.leaseDurationSeconds * 1000;
    this.renewIntervalMs = options.renewIntervalMs ?? leaseMs / 3;
    this.renewDeadlineMs = options.renewDeadlineMs ?? (leaseMs * 2) / 3;
    this.retryPeriodMs = options.retryPeriodMs ?? Math.min(2000, this.renewIntervalMs);
    this.logger = options.logger ?? createLogger('operator');
    if (!(this.renewDeadlineMs < leaseMs)) {
      throw new Error('renewDeadlineMs must be shorter than the lease duration');
    }
    if (!(this.renewIntervalMs < this.renewDeadlineMs)) {
      throw new Error('renewIntervalMs must be shorter than renewDeadlineMs');
    }
    if (!(this.retryPeriodMs > 0)) throw new Error('retryPeriodMs must be positive');
  }

  /** Whether this process currently leads. */
  get isLeader(): boolean {
    return this.leading;
  }

  /** Starts campaigning in the background. */
  start(): void {
    if (this.loop) throw new Error('leader elector already started');
    this.loop = this.campaign();
  }

  /**
   * Stops campaigning; if leading, steps down (aborting the signal, awaiting
   * `onStoppedLeading`) and then releases the lease so another candidate takes over at
   * once rather than after it expires.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.stepDown('stopped');
    await this.windingDown;
    try {
      await withTimeout(this.release(), this.renewDeadlineMs, 'lease release');
    } catch (err) {
      // The lease then simply expires; the next leader waits one lease duration.
      this.logger.warn('could not release the lease', { lease: this.name, error: err });
    }
  }

  private async campaign(): Promise<void> {
    while (!this.stopping) {
      // A new term must not start while the previous one's work is still winding down.
      await this.windingDown;
      if (this.stopping) break;
      const startedAt = performance.now();
      let attempt: Attempt | 'failed';
      try {
        attempt = await withTimeout(
          this.tryAcquireOrRenew(startedAt),
          this.renewDeadlineMs,
          'lease update',
        );
      } catch (err) {
        attempt = 'failed';
        this.logger.warn('lease update failed', { lease: this.name, error: err });
        this.options.onAttemptFailed?.(err);
      }
      if (this.stopping) break;
      if (attempt === 'held') {
        // Only a term wound down can be followed by a new one; a late success during the
        // wind-down is renewed on the next pass.
        if (!this.leading && !this.windingDown) this.becomeLeader();
        if (this.leading) this.armDeadline(startedAt);
      } else if (attempt === 'lost') {
        this.stepDown('the lease is held by another candidate');
      }
      // A failed renewal is retried until the deadline timer steps us down.
      const renewing = this.leading && attempt === 'held';
      await this.sleep(
        renewing ? this.renewIntervalMs : this.retryPeriodMs * (1 + Math.random() * 0.2),
      );
    }
  }

  /** One read and at most one conditional write. */
  private async tryAcquireOrRenew(startedAt: number): Promise<Attempt> {
    const now = new V1MicroTime();
    let lease: V1Lease;
    try {
      lease = await this.api.readNamespacedLease({ name: this.name, namespace: this.namespace });
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
      return this.write(startedAt, () =>
        this.api.createNamespacedLease({
          namespace: this.namespace,
          body: {
            metadata: { name: this.name, namespace: this.namespace },
            // A fresh lease has seen no transition yet, as in client-go.
            spec: { ...this.heldSpec(now, {}, true), leaseTransitions: 0 },
          },
        }),
      );
    }
    this.observe(lease, performance.now());
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    if (holder && holder !== this.identity && !this.expired(spec)) return 'lost';
    const body: V1Lease = { ...lease, spec: this.heldSpec(now, spec, holder !== this.identity) };
    return this.write(startedAt, () =>
      this.api.replaceNamespacedLease({ name: this.name, namespace: this.namespace, body }),
    );
  }

  /** Runs a create or a replace; 409 (another candidate wrote first) means lost. */
  private async write(startedAt: number, request: () => Promise<V1Lease>): Promise<Attempt> {
    try {
      this.observe(await request(), startedAt);
      return 'held';
    } catch (err) {
      if (statusOf(err) === 409) return 'lost';
      throw err;
    }
  }

  /** The spec with us as holder; a takeover stamps acquireTime and counts a transition. */
  private heldSpec(now: V1MicroTime, previous: V1LeaseSpec, takeover: boolean): V1LeaseSpec {
    return {
      ...previous,
      holderIdentity: this.identity,
      leaseDurationSeconds: this.leaseDurationSeconds,
      // MicroTime fields: the apiserver rejects a plain Date's millisecond ISO string;
      // V1MicroTime serialises with six fractional digits.
      renewTime: now,
      acquireTime: takeover ? now : previous.acquireTime,
      leaseTransitions: takeover
        ? (previous.leaseTransitions ?? 0) + 1
        : (previous.leaseTransitions ?? 0),
    };
  }

  /** Remembers when the record last changed, by our own clock, and who holds it. */
  private observe(lease: V1Lease, at: number): void {
    const resourceVersion = lease.metadata?.resourceVersion;
    if (resourceVersion !== this.observedResourceVersion) {
      this.observedResourceVersion = resourceVersion;
      this.observedAt = at;
    }
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== this.observedHolder) {
      this.observedHolder = holder;
      this.logger.info('lease holder changed', { lease: this.name, holder });
      this.options.onNewLeader?.(holder);
    }
  }

  private expired(spec: V1LeaseSpec): boolean {
    const durationMs = (spec.leaseDurationSeconds ?? this.leaseDurationSeconds) * 1000;
    return performance.now() - this.observedAt >= durationMs;
  }

  private becomeLeader(): void {
    this.leading = true;
    const term = new AbortController();
    this.term = term;
    this.logger.info('started leading', { lease: this.name, identity: this.identity });
    try {
      const started = this.options.onStartedLeading(term.signal);
      if (started instanceof Promise) {
        started.catch((err: unknown) =>
          this.logger.error('onStartedLeading failed', { lease: this.name, error: err }),
        );
      }
    } catch (err) {
      this.logger.error('onStartedLeading failed', { lease: this.name, error: err });
    }
  }

  /** (Re)arms the step-down timer: `renewDeadlineMs` after the last renewal was sent. */
  private armDeadline(renewalSentAt: number): void {
    clearTimeout(this.deadlineTimer);
    // Counted from when the renewal was sent, not when it returned: others may have
    // observed the record from that moment on.
    const remaining = renewalSentAt + this.renewDeadlineMs - performance.now();
    this.deadlineTimer = setTimeout(
      () => this.stepDown('could not renew the lease within the deadline'),
      Math.max(0, remaining),
    );
  }

  private stepDown(reason: string): void {
    if (!this.leading) return;
    this.leading = false;
    clearTimeout(this.deadlineTimer);
    this.logger.warn('stopped leading', { lease: this.name, identity: this.identity, reason });
    this.term?.abort(new Error(reason));
    const windingDown = (async () => {
      try {
        await this.options.onStoppedLeading?.();
      } catch (err) {
        this.logger.error('onStoppedLeading failed', { lease: this.name, error: err });
      }
    })();
    this.windingDown = windingDown;
    void windingDown.then(() => {
      if (this.windingDown === windingDown) this.windingDown = undefined;
    });
  }

  /** Empties the holder if it is still us, so a candidate need not wait for expiry. */
  private async release(): Promise<void> {
    let lease: V1Lease;
    try {
      lease = await this.api.readNamespacedLease({ name: this.name, namespace: this.namespace });
    } catch (err) {
      if (statusOf(err) === 404) return;
      throw err;
    }
    if (lease.spec?.holderIdentity !== this.identity) return;
    const now = new V1MicroTime();
    const body: V1Lease = {
      ...lease,
      spec: {
        ...lease.spec,
        holderIdentity: '',
        // As client-go does: a candidate judging by renewTime sees it expire at once.
        leaseDurationSeconds: 1,
        renewTime: now,
        acquireTime: now,
      },
    };
    try {
      await this.api.replaceNamespacedLease({ name: this.name, namespace: this.namespace, body });
      this.logger.info('released the lease', { lease: this.name, identity: this.identity });
    } catch (err) {
      // 409: someone wrote after our read, so it is no longer ours to release.
      if (statusOf(err) !== 409) throw err;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

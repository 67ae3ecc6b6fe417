/**
 * Records Kubernetes Events (events.k8s.io/v1) about the custom resources, so
 * `kubectl describe` and `kubectl get events` tell a user what the operator
 * did: `regarding` is the resource (apiVersion, kind, namespace, name, uid),
 * `reportingController` the operator. A repeat of a recent Event adds to its
 * series instead of a new object (event-series.ts). Recording never fails a
 * reconcile: a refused or failed write is logged and dropped, as client-go's
 * recorder does; writes run in the background, in order per Event.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { API_GROUP_VERSION, type ResourceKind } from '../../../crds/src/index.js';
import { isKubeNotFound } from '../../../common/kube/errors.js';
import { KubeJson } from '../../../common/kube/kube-json.js';
import type { Logger } from '../../../common/logger.js';
import { EventSeries } from './event-series.js';
import type { EventNote } from './transitions.js';

/** The `reportingController` of the operator's Events: the platform's API group, then who. */
export const REPORTING_CONTROLLER = 'svc.dev/operator';

/** The API's limit on an Event's note, in bytes. */
const NOTE_MAX_BYTES = 1024;

/** A custom resource an Event is about. */
export interface Regarding {
  kind: ResourceKind;
  metadata: { namespace?: string; name?: string; uid?: string };
}

/** Where controllers send Events; {@link flush} waits for the writes in flight. */
export interface EventSink {
  /** Records `event` about `object`, in the background; never throws. */
  record(object: Regarding, event: EventNote): void;
  /** Resolves once every Event recorded so far is written (or given up). */
  flush(): Promise<void>;
}

/** An Event sink that records nothing (unit tests of controllers). */
export const noEvents: EventSink = { record: () => undefined, flush: () => Promise.resolve() };

/** An events.k8s.io/v1 MicroTime: RFC 3339 with exactly six fractional digits, as the API parses it. */
export function microTime(at: Date): string {
  return at.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** `note` cut to the API's limit in bytes, on a character boundary. */
export function fitNote(note: string): string {
  if (Buffer.byteLength(note) <= NOTE_MAX_BYTES) return note;
  let cut = note.slice(0, NOTE_MAX_BYTES - 3);
  while (Buffer.byteLength(cut) > NOTE_MAX_BYTES - 3) cut = cut.slice(0, -1);
  return `${cut}...`;
}

/** The events.k8s.io/v1 Event recording `event` about `object`, named `name`. */
export function eventObject(
  object: Regarding,
  event: EventNote,
  name: string,
  at: Date,
  reportingInstance: string,
): Record<string, unknown> {
  const { namespace, name: objectName, uid } = object.metadata;
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name, namespace },
    eventTime: microTime(at),
    reportingController: REPORTING_CONTROLLER,
    reportingInstance,
    // What the operator did; the reason says what came of it.
    action: 'Reconcile',
    type: event.type,
    reason: event.reason,
    note: fitNote(event.note),
    regarding: {
      apiVersion: API_GROUP_VERSION,
      kind: object.kind,
      namespace,
      name: objectName,
      uid,
    },
  };
}

/** Records Events through the Kubernetes API. */
export class KubeEventRecorder implements EventSink {
  private readonly api: KubeJson;
  private readonly series = new EventSeries();
  /** The last write of each Event key: the next one waits for it (a series counts in order). */
  private readonly pending = new Map<string, Promise<void>>();
  private readonly reportingInstance: string;
  private readonly now: () => Date;

  constructor(
    kc: KubeConfig,
    private readonly log: Logger,
    opts: { reportingInstance?: string; now?: () => Date } = {},
  ) {
    this.api = new KubeJson(kc);
    this.reportingInstance = (opts.reportingInstance ?? hostname()).slice(0, 128);
    this.now = opts.now ?? (() => new Date());
  }

  record(object: Regarding, event: EventNote): void {
    const { uid = '', namespace = '', name = '' } = object.metadata;
    const key = EventSeries.key(uid, event.type, event.reason, event.note);
    const at = this.now();
    const write = (this.pending.get(key) ?? Promise.resolve())
      .then(() => this.write(key, object, event, at))
      .catch((err: unknown) => {
        this.log.warn('could not record an event', {
          kind: object.kind,
          namespace,
          name,
          reason: event.reason,
          err,
        });
      })
      .finally(() => {
        if (this.pending.get(key) === write) this.pending.delete(key);
      });
    this.pending.set(key, write);
  }

  async flush(): Promise<void> {
    await Promise.all([...this.pending.values()]);
  }

  private async write(key: string, object: Regarding, event: EventNote, at: Date): Promise<void> {
    const namespace = object.metadata.namespace ?? '';
    const base = `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events`;
    const decision = this.series.decide(key, at.getTime());
    if (decision.write === 'series') {
      try {
        await this.api.request(
          'PATCH',
          `${base}/${encodeURIComponent(decision.name)}`,
          { series: { count: decision.count, lastObservedTime: microTime(at) } },
          'application/merge-patch+json',
        );
        this.series.written(key, at.getTime());
        return;
      } catch (err) {
        // Gone (its TTL passed, or someone deleted it): a new one starts the series again.
        if (!isKubeNotFound(err)) throw err;
        this.series.forget(key);
      }
    }
    // client-go's naming: the object's name and a time in hex (here with a random tail).
    const name = `${object.metadata.name ?? 'object'}.${at.getTime().toString(16)}${randomBytes(3).toString('hex')}`;
    await this.api.request(
      'POST',
      base,
      eventObject(object, event, name, at, this.reportingInstance),
    );
    this.series.written(key, at.getTime(), { namespace, name });
  }
}

/**
 * The edge's view of agents: a cluster-wide informer on Agent resources,
 * indexed by address label, plus the two writes the edge makes: the activity
 * mark that keeps an agent awake (or wakes it from zero) and the detection
 * that it serves WebSockets. Both are merge patches, throttled per agent.
 */
import {
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import {
  ANNOTATIONS,
  API_GROUP,
  API_VERSION,
  PLURALS,
  type Agent,
} from '../../../crds/src/index.js';
import type { Logger } from '../../../common/logger.js';
import { customResourceSource, ResilientInformer } from '../../../common/kube/index.js';

const MARK_EVERY_MS = 30_000;

/** Agents by address label, kept current by a watch. */
export class AgentIndex {
  private readonly informer: ResilientInformer<Agent>;
  private readonly byLabel = new Map<string, { namespace: string; name: string }>();
  private readonly api: CustomObjectsApi;
  private readonly lastMark = new Map<string, number>();
  private readonly websocketMarked = new Set<string>();
  /** Whether the informer is this index's own (started and stopped by it) or shared. */
  private readonly owned: boolean;
  private readonly listeners = new Set<() => void>();

  /**
   * Watches the Agents of `kc`, through `shared` when given (the API server's
   * Agent cache: one informer per kind), which its owner starts and stops.
   */
  constructor(
    kc: KubeConfig,
    private readonly log: Logger,
    shared?: ResilientInformer<Agent>,
  ) {
    this.api = kc.makeApiClient(CustomObjectsApi);
    this.owned = !shared;
    this.informer =
      shared ??
      new ResilientInformer<Agent>(
        kc,
        customResourceSource<Agent>(kc, {
          group: API_GROUP,
          version: API_VERSION,
          plural: PLURALS.Agent,
        }),
        { name: 'edge-agents', logger: log },
      );
    const index = (agent: Agent) => {
      this.index(agent);
      this.changed();
    };
    this.informer.on('add', index);
    this.informer.on('update', index);
    this.informer.on('delete', (agent) => {
      if (agent.spec.addressLabel) this.byLabel.delete(agent.spec.addressLabel);
      this.changed();
    });
  }

  /**
   * Calls `listener` after each change the watch brought in, once {@link find} answers with it
   * (tests wait on it); returns the unsubscribe.
   */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Starts watching (a shared informer is its owner's to start); resolves once the first list is in. */
  async start(): Promise<void> {
    if (this.owned) this.informer.start();
    await this.informer.synced;
    // A shared informer may have listed before this index listened to its events.
    for (const agent of this.informer.list()) this.index(agent);
  }

  private index(agent: Agent): void {
    const label = agent.spec.addressLabel;
    if (label) {
      this.byLabel.set(label, {
        namespace: agent.metadata.namespace ?? '',
        name: agent.metadata.name ?? '',
      });
    }
  }

  /** Stops watching (a shared informer is its owner's to stop). */
  async stop(): Promise<void> {
    if (this.owned) await this.informer.stop();
  }

  /** The agent with this address label, as last seen. */
  find(label: string): Agent | undefined {
    const ref = this.byLabel.get(label);
    return ref ? this.informer.get(ref.namespace, ref.name) : undefined;
  }

  private async patch(agent: Agent, body: object, status: boolean): Promise<void> {
    const coords = {
      group: API_GROUP,
      version: API_VERSION,
      namespace: agent.metadata.namespace ?? '',
      plural: PLURALS.Agent,
      name: agent.metadata.name ?? '',
      body,
    };
    const options = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    if (status) await this.api.patchNamespacedCustomObjectStatus(coords, options);
    else await this.api.patchNamespacedCustomObject(coords, options);
  }

  /** Records that the agent got a request (at most every 30 s per agent, or at once when `force`). */
  async markActivity(agent: Agent, force = false): Promise<void> {
    const key = agent.metadata.name ?? '';
    const now = Date.now();
    if (!force && now - (this.lastMark.get(key) ?? 0) < MARK_EVERY_MS) return;
    this.lastMark.set(key, now);
    await this.patch(
      agent,
      { metadata: { annotations: { [ANNOTATIONS.lastActivity]: new Date(now).toISOString() } } },
      false,
    ).catch((err: unknown) =>
      this.log.warn('activity mark failed', { agent: key, err: String(err) }),
    );
  }

  /** Records, once, that the agent answered a WebSocket upgrade. */
  async markServesWebsocket(agent: Agent): Promise<void> {
    const key = agent.metadata.name ?? '';
    if (this.websocketMarked.has(key) || agent.status?.servesWebsocket === true) return;
    this.websocketMarked.add(key);
    await this.patch(agent, { status: { servesWebsocket: true } }, true).catch((err: unknown) =>
      this.log.warn('websocket mark failed', { agent: key, err: String(err) }),
    );
  }
}

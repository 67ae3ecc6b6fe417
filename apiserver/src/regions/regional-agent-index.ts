/**
 * The edge's agent index over every region's API: the one edge (the global
 * front door) finds an agent by its address wherever it runs, and marks its
 * activity on the copy it found, in that copy's API, whose operator wakes it.
 * With one API it is the plain index.
 */
import { cachesOf } from '../store/region-caches.js';
import { ANNOTATIONS, type Agent } from '../../../crds/src/index.js';
import type { Logger } from '../../../common/logger.js';
import { AgentIndex } from '../edge/agent-index.js';
import type { RegionApis } from './region-apis.js';

/**
 * The copy of an agent the edge sends a request to, of its copies in region
 * order: the first that serves (has an endpoint) and is not being drained by
 * a region change; else the first not being drained; else the first.
 */
export function servingCopy(copies: readonly Agent[]): Agent | undefined {
  const kept = copies.filter((a) => !a.metadata.annotations?.[ANNOTATIONS.draining]);
  return kept.find((a) => a.status?.endpoint) ?? kept[0] ?? copies[0];
}

/** An AgentIndex per region API, asked in region order. */
export class RegionalAgentIndex extends AgentIndex {
  private readonly others: AgentIndex[];

  constructor(apis: RegionApis, log: Logger) {
    super(apis.homeApi.kc, log, cachesOf(apis.homeApi)?.of('Agent')?.informer);
    this.others = apis.apis
      .slice(1)
      .map(
        (api) =>
          new AgentIndex(
            api.kc,
            log.child({ region: api.regions[0] }),
            cachesOf(api)?.of('Agent')?.informer,
          ),
      );
  }

  /** Starts every region's watch; resolves once each has its first list. */
  override async start(): Promise<void> {
    await Promise.all([super.start(), ...this.others.map((i) => i.start())]);
  }

  /** Stops every watch. */
  override async stop(): Promise<void> {
    await Promise.all([super.stop(), ...this.others.map((i) => i.stop())]);
  }

  /** The agent with this address label: of its copies (two during a region change), {@link servingCopy}. */
  override find(label: string): Agent | undefined {
    const copies = [super.find(label), ...this.others.map((i) => i.find(label))];
    return servingCopy(copies.filter((a): a is Agent => a !== undefined));
  }

  /** Marks activity on the copy `agent` is, in its own API. */
  override async markActivity(agent: Agent, force = false): Promise<void> {
    const other = this.otherHolding(agent);
    return other ? other.markActivity(agent, force) : super.markActivity(agent, force);
  }

  /** Records WebSocket use on the copy `agent` is, in its own API. */
  override async markServesWebsocket(agent: Agent): Promise<void> {
    const other = this.otherHolding(agent);
    return other ? other.markServesWebsocket(agent) : super.markServesWebsocket(agent);
  }

  /** The index of another region whose copy `agent` is (by UID); undefined for home's. */
  private otherHolding(agent: Agent): AgentIndex | undefined {
    const label = agent.spec.addressLabel;
    if (!label) return undefined;
    return this.others.find((i) => i.find(label)?.metadata.uid === agent.metadata.uid);
  }
}

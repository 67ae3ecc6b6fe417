/**
 * The engine of each region (the region registry's `engineUrl`), and which
 * one holds a collection's points: the engine of the region recorded as its
 * `engineRegion` when it was created or last moved; a collection recorded
 * before regions had engines of their own is in the home region's. Regions
 * that share an engine URL (a name list) share one client, so with one engine
 * every collection is where it always was.
 */
import type { VectorCollectionDoc } from './collections/model.js';
import { EngineClient, type SearchSender } from './engine-client.js';
import { SearchCoalescer } from './search-coalescer.js';

/** One engine: its client, and how searches reach it. */
export interface RegionEngine {
  url: string;
  engine: EngineClient;
  /** A coalescer wrapping `engine`, or `engine` itself. */
  searches: SearchSender;
}

/** The region whose engine holds the collection's points. */
export function engineRegionOf(doc: Pick<VectorCollectionDoc, 'engineRegion'>, home: string) {
  return doc.engineRegion ?? home;
}

/** The engines of the regions. */
export class Engines {
  private constructor(
    /** The home region: its engine holds collections recorded without an engine region. */
    readonly home: string,
    private readonly byRegion: ReadonlyMap<string, RegionEngine>,
  ) {}

  /**
   * `urls` names each region's engine; the home region, when it leaves it
   * out (or with one engine), uses `homeUrl`. Regions with one URL share a client.
   */
  static fromUrls(
    home: string,
    homeUrl: string,
    urls: Readonly<Record<string, string>>,
    opts: { apiKey?: string; coalesce?: boolean } = {},
  ): Engines {
    const byUrl = new Map<string, RegionEngine>();
    const engineAt = (url: string) => {
      const base = url.replace(/\/+$/, '');
      let found = byUrl.get(base);
      if (!found) {
        const engine = new EngineClient(base, { apiKey: opts.apiKey });
        const searches = (opts.coalesce ?? true) ? new SearchCoalescer(engine) : engine;
        found = { url: base, engine, searches };
        byUrl.set(base, found);
      }
      return found;
    };
    const byRegion = new Map<string, RegionEngine>([[home, engineAt(urls[home] ?? homeUrl)]]);
    for (const [region, url] of Object.entries(urls)) byRegion.set(region, engineAt(url));
    return new Engines(home, byRegion);
  }

  /** One engine for every region (tools and unit tests), searched through `searches`. */
  static single(engine: EngineClient, searches: SearchSender = engine, home = 'local'): Engines {
    return new Engines(home, new Map([[home, { url: 'engine', engine, searches }]]));
  }

  /** The engine of `region` (the home region's for one the registry gives none). */
  of(region: string): RegionEngine {
    return this.byRegion.get(region) ?? this.byRegion.get(this.home)!;
  }

  /** The engine holding `doc`'s points. */
  forDoc(doc: Pick<VectorCollectionDoc, 'engineRegion'>): RegionEngine {
    return this.of(engineRegionOf(doc, this.home));
  }

  /** Whether two regions' points live in one engine (moving between them copies nothing). */
  same(a: string, b: string): boolean {
    return this.of(a) === this.of(b);
  }

  /** Closes every engine's connections. */
  close(): void {
    for (const engine of new Set([...this.byRegion.values()].map((e) => e.engine))) {
      engine.close();
    }
  }
}

/**
 * The vector plane's route declarations built with stand-in services, for
 * unit tests of what is declared (the document, the fast path's matching):
 * declaring calls no service, and these tests never run a handler.
 */
import type { CollectionService } from './collections/service.js';
import { EngineClient } from './engine-client.js';
import { Engines } from './engines.js';
import { vectorRoutes } from './routes.js';
import type { VectorRoute } from './routing.js';
import type { SchemaService } from './schema/service.js';
import type { StorageMeter } from './storage/storage-meter.js';

/** The declarations as the app mounts them. */
export function declaredVectorRoutes(): VectorRoute[] {
  return vectorRoutes({
    collections: {} as CollectionService,
    engines: Engines.single(new EngineClient('http://127.0.0.1:1')),
    schemas: {} as SchemaService,
    storage: {} as StorageMeter,
    regions: ['local'],
  });
}

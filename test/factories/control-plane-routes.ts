/**
 * Every control-plane route declaration, built without the services their
 * handlers call: for tests of what the declarations alone decide (the mounted
 * paths, their matching, the OpenAPI document's list). A handler run from here
 * would fail on its missing service.
 */
import { controlPlaneRoutes } from '../../apiserver/src/control-plane/app.js';
import type { AnyRoute } from '../../apiserver/src/control-plane/routing.js';

/** The control plane's routes, their services left out. */
export function declaredControlPlaneRoutes(): AnyRoute[] {
  return controlPlaneRoutes({
    probes: [],
    agents: {} as never,
    deploy: {} as never,
    deployments: {} as never,
    rollback: {} as never,
    internal: {} as never,
    runs: {} as never,
    logs: {} as never,
    workspaces: {} as never,
    regionChanges: {} as never,
    collectionChanges: {} as never,
    operations: {} as never,
    secrets: {} as never,
    workspaceSecrets: {} as never,
    homeRegions: {} as never,
    usage: {} as never,
  });
}

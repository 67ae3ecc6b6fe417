/**
 * Which code archives an agent keeps: those of its ARCHIVES_KEPT most recent
 * successful (built) deployments, which a rollback may redeploy, and those of
 * deployments still in progress; the others' are deleted.
 */
import { LABELS, versionsKept, type AgentDeployment } from '../../../crds/src/index.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { CustomResourceRepository } from '../store/custom-resources.js';
import type { ArchiveStore } from './archive-store.js';

/** The archive ids among `deployments` (one agent's) that are no longer kept. */
export function archivesToDelete(deployments: readonly AgentDeployment[]): string[] {
  const all = deployments.filter((d) => !d.spec.ephemeral && d.spec.archiveId);
  const finished = (d: AgentDeployment) =>
    Boolean(d.status?.finishedAt) || d.status?.state === 'failed';
  const newest = versionsKept(all);
  // A rollback shares its source's archive, so keep by archive id, not by deployment.
  const kept = new Set(
    [...newest, ...all.filter((d) => !d.status?.builtAt && !finished(d))].map(
      (d) => d.spec.archiveId,
    ),
  );
  const doomed = all
    .filter((d) => d.status?.builtAt && !newest.includes(d))
    .map((d) => d.spec.archiveId ?? '')
    .filter((id) => !kept.has(id));
  return [...new Set(doomed)];
}

/** Deletes the archives the agent `agentId` no longer keeps. */
export async function retainArchives(
  deployments: Pick<CustomResourceRepository<'AgentDeployment'>, 'list'>,
  archives: Pick<ArchiveStore, 'delete'>,
  auth: AuthContext,
  agentId: string,
): Promise<void> {
  const all = await deployments.list(auth.tenant.namespace, `${LABELS.agentId}=${agentId}`);
  for (const id of archivesToDelete(all)) await archives.delete(id);
}

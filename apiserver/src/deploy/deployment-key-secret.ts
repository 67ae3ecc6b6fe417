/**
 * A deployment's own API key: minted when the deployment is accepted, and kept
 * only in a Secret the deployment owns, which its workload reads (so deleting
 * the deployment deletes the Secret; the key reaper revokes the key).
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import { controllerRef } from '../../../crds/src/owner-reference.js';
import { LABELS, OBJECT_NAMES, type AgentDeployment } from '../../../crds/src/index.js';
import type { AccountService } from '../accounts/account-service.js';
import type { AuthContext } from '../auth/authenticate.js';
import { asUnavailable } from '../store/kube-errors.js';

/** One region's copy of a deployment and the core client of that region's API. */
export interface DeploymentCopy {
  core: CoreV1Api;
  deployment: AgentDeployment;
}

/**
 * Mints the deployment's key and stores it in a Secret beside each copy of
 * the deployment (one per region it is placed in, owned by that copy); a key
 * whose Secrets fail is revoked.
 */
export async function mintDeploymentKey(
  accounts: Pick<AccountService, 'createKey' | 'revokeKey'>,
  auth: AuthContext,
  copies: readonly DeploymentCopy[],
): Promise<void> {
  const deployment = copies[0]?.deployment;
  if (!deployment) return;
  const id = deployment.metadata.name ?? '';
  const key = await accounts.createKey({
    accountId: auth.account._id,
    environment: auth.tenant.environment,
    label: `deployment ${deployment.spec.version} of ${deployment.spec.agentId}`,
    agentId: deployment.spec.agentId,
    deploymentId: id,
  });
  try {
    for (const copy of copies) {
      await copy.core.createNamespacedSecret({
        namespace: auth.tenant.namespace,
        body: {
          metadata: {
            name: OBJECT_NAMES.deploymentKeySecret(id),
            labels: { [LABELS.agentId]: deployment.spec.agentId },
            ownerReferences: [controllerRef(copy.deployment)],
          },
          type: 'Opaque',
          stringData: { SVC_API_KEY: key.text },
        },
      });
    }
  } catch (err) {
    await accounts.revokeKey(key.keyId).catch(() => undefined);
    asUnavailable(err);
  }
}

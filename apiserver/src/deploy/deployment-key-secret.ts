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

/** Mints the deployment's key and stores it in its Secret; a key whose Secret fails is revoked. */
export async function mintDeploymentKey(
  core: CoreV1Api,
  accounts: Pick<AccountService, 'createKey' | 'revokeKey'>,
  auth: AuthContext,
  deployment: AgentDeployment,
): Promise<void> {
  const id = deployment.metadata.name ?? '';
  const key = await accounts.createKey({
    accountId: auth.account._id,
    environment: auth.tenant.environment,
    label: `deployment ${deployment.spec.version} of ${deployment.spec.agentId}`,
    agentId: deployment.spec.agentId,
    deploymentId: id,
  });
  try {
    await core.createNamespacedSecret({
      namespace: auth.tenant.namespace,
      body: {
        metadata: {
          name: OBJECT_NAMES.deploymentKeySecret(id),
          labels: { [LABELS.agentId]: deployment.spec.agentId },
          ownerReferences: [controllerRef(deployment)],
        },
        type: 'Opaque',
        stringData: { SVC_API_KEY: key.text },
      },
    });
  } catch (err) {
    await accounts.revokeKey(key.keyId).catch(() => undefined);
    asUnavailable(err);
  }
}

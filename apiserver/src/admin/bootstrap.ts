/**
 * The bootstrap account of the single-machine platform: created on the first
 * `npm start`, with a key written to `.dev/env` as SVC_API_KEY. A key that
 * still resolves is kept across restarts; otherwise a new one is minted.
 */
import type { AccountService } from '../accounts/account-service.js';

/** The account name `npm start` uses. */
export const BOOTSTRAP_ACCOUNT_NAME = 'bootstrap';

/** Returns a live key of the bootstrap account, creating the account and key when needed. */
export async function ensureBootstrapKey(
  accounts: AccountService,
  existingKey: string | undefined,
): Promise<{ accountId: string; key: string; created: boolean }> {
  if (existingKey) {
    const resolved = await accounts.resolveKey(existingKey);
    if (
      resolved &&
      resolved.account.name === BOOTSTRAP_ACCOUNT_NAME &&
      !resolved.account.suspended
    ) {
      return { accountId: resolved.account._id, key: existingKey, created: false };
    }
  }
  const existing = (await accounts.listAccounts()).find((a) => a.name === BOOTSTRAP_ACCOUNT_NAME);
  const account =
    existing ??
    (await accounts.createAccount({
      name: BOOTSTRAP_ACCOUNT_NAME,
      tier: 'performance',
      subscriptionStatus: 'active',
    }));
  if (account.suspended) await accounts.updateAccount(account._id, { suspended: false });
  const key = await accounts.createKey({
    accountId: account._id,
    environment: 'live',
    label: 'npm start bootstrap',
  });
  return { accountId: account._id, key: key.text, created: true };
}

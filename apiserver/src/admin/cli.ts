/**
 * The commands of `npm run admin -- <command> [options]` (see main.ts):
 *
 *   create-account --name NAME [--tier free|starter|performance|enterprise] [--subscription STATUS]
 *   list-accounts
 *   create-key --account ID [--env live|test] [--label TEXT]     prints the key once
 *   list-keys --account ID
 *   revoke-key --key KEY_ID
 *   suspend --account ID | reinstate --account ID
 *   set-subscription --account ID --status STATUS
 *   set-tier --account ID --tier TIER
 */
import { parseArgs } from 'node:util';
import { TIERS, type Tier } from '../../../crds/src/index.js';
import type { AccountService } from '../accounts/account-service.js';
import {
  SUBSCRIPTION_STATUSES,
  type Environment,
  type SubscriptionStatus,
} from '../accounts/model.js';

/** The usage text, printed for an unknown command. */
export const USAGE = `commands:
  create-account --name NAME [--tier free|starter|performance|enterprise] [--subscription STATUS]
  list-accounts
  create-key --account ID [--env live|test] [--label TEXT]     prints the key once
  list-keys --account ID
  revoke-key --key KEY_ID
  suspend --account ID | reinstate --account ID
  set-subscription --account ID --status STATUS
  set-tier --account ID --tier TIER`;

function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T))
    throw new Error(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function required(name: string, value: string | undefined): string {
  if (!value) throw new Error(`--${name} is required`);
  return value;
}

/** Runs one admin command; returns what to print. */
export async function runAdmin(argv: string[], accounts: AccountService): Promise<unknown> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      tier: { type: 'string' },
      subscription: { type: 'string' },
      status: { type: 'string' },
      account: { type: 'string' },
      env: { type: 'string' },
      label: { type: 'string' },
      key: { type: 'string' },
    },
  });
  const account = () => required('account', values.account);
  switch (positionals[0]) {
    case 'create-account':
      return accounts.createAccount({
        name: required('name', values.name),
        tier: oneOf<Tier>('tier', values.tier, TIERS),
        subscriptionStatus: oneOf<SubscriptionStatus>(
          'subscription',
          values.subscription,
          SUBSCRIPTION_STATUSES,
        ),
      });
    case 'list-accounts':
      return accounts.listAccounts();
    case 'create-key':
      return accounts.createKey({
        accountId: account(),
        environment: oneOf<Environment>('env', values.env, ['live', 'test']) ?? 'live',
        label: values.label ?? null,
      });
    case 'list-keys':
      return accounts.listKeys(account());
    case 'revoke-key':
      await accounts.revokeKey(required('key', values.key));
      return { revoked: values.key };
    case 'suspend':
      return accounts.updateAccount(account(), { suspended: true });
    case 'reinstate':
      return accounts.updateAccount(account(), { suspended: false });
    case 'set-subscription':
      return accounts.updateAccount(account(), {
        subscriptionStatus: oneOf(
          'status',
          required('status', values.status),
          SUBSCRIPTION_STATUSES,
        ),
      });
    case 'set-tier':
      return accounts.updateAccount(account(), {
        tier: oneOf('tier', required('tier', values.tier), TIERS),
      });
    default:
      throw new Error(`unknown command ${positionals[0] ?? '(none)'}\n${USAGE}`);
  }
}

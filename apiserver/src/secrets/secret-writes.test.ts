import { describe, expect, it } from '@jest/globals';
import { PlanLimitExceeded, SecretValueTooLarge } from '../errors/catalogue.js';
import { loadPlans } from '../accounts/plans.js';
import { MAX_VALUE_BYTES } from './secret-rules.js';
import { SecretSet } from './secret-store.js';
import { checkValueSize, upsertSecret } from './secret-writes.js';

const plan = { tier: 'free' as const, secretsPerHolder: 2 };

describe('upsertSecret', () => {
  it('creates, then replaces keeping the id, creation time and description', () => {
    const set = new SecretSet({}, {});
    const first = upsertSecret(set, { key: 'A', value: 'one', description: 'd' }, plan, 'agent');
    expect(first.created).toBe(true);
    const second = upsertSecret(set, { key: 'A', value: 'two' }, plan, 'agent');
    expect(second.created).toBe(false);
    expect(second.secret).toMatchObject({
      id: first.secret.id,
      created_at: first.secret.created_at,
      description: 'd',
    });
    expect(Buffer.from(set.data.A ?? '', 'base64').toString()).toBe('two');
    expect(
      upsertSecret(set, { key: 'A', value: 'x', description: null }, plan, 'agent').secret,
    ).toMatchObject({ description: null });
  });

  it("refuses a new key past the plan's cap, naming the holder, but replaces an existing one", () => {
    const set = new SecretSet({}, {});
    upsertSecret(set, { key: 'A', value: 'one' }, plan, 'workspace');
    upsertSecret(set, { key: 'B', value: 'two' }, plan, 'workspace');
    expect(() => upsertSecret(set, { key: 'C', value: 'three' }, plan, 'workspace')).toThrow(
      new PlanLimitExceeded('The free plan allows 2 secrets per workspace; delete one first.'),
    );
    expect(set.keys()).toEqual(['A', 'B']);
    expect(upsertSecret(set, { key: 'B', value: 'again' }, plan, 'workspace').created).toBe(false);
  });

  it('takes the cap from SVC_PLANS_JSON', () => {
    const plans = loadPlans(JSON.stringify({ free: { secretsPerHolder: 1 } }));
    expect(plans.free.secretsPerHolder).toBe(1);
    expect(plans.starter.secretsPerHolder).toBe(50);
    const set = new SecretSet({}, {});
    upsertSecret(set, { key: 'A', value: 'one' }, plans.free, 'agent');
    expect(() => upsertSecret(set, { key: 'B', value: 'two' }, plans.free, 'agent')).toThrow(
      PlanLimitExceeded,
    );
  });

  it('refuses a value over the cap without quoting it', () => {
    const value = 'v'.repeat(MAX_VALUE_BYTES + 1);
    let caught: unknown;
    try {
      checkValueSize(value);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SecretValueTooLarge);
    expect(JSON.stringify(caught) + String((caught as Error).message)).not.toContain('vvvv');
  });
});

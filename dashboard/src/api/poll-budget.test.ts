import { describe, expect, it } from '@jest/globals';
import { budgetFrom, pollDelay } from './poll-budget.js';

describe('pollDelay', () => {
  it('keeps the base rate for large or unlimited budgets and slows down below', () => {
    expect(pollDelay(3000, null)).toBe(3000);
    expect(pollDelay(3000, 1200)).toBe(3000);
    expect(pollDelay(3000, 150)).toBe(3000);
    expect(pollDelay(3000, 60)).toBe(7500);
  });
});

describe('budgetFrom', () => {
  it('reads a positive limit and nothing else', () => {
    expect(budgetFrom('60')).toBe(60);
    expect(budgetFrom(null)).toBeNull();
    expect(budgetFrom('x')).toBeNull();
    expect(budgetFrom('0')).toBeNull();
  });
});

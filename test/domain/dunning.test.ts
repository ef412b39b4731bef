import { describe, expect, it } from 'vitest';
import { DEFAULT_DUNNING_SCHEDULE, dunningRetryTimes, nextDunningStep, retryDaysProblem, shownSubscriptionStatus } from '../../src/domain/dunning.js';

const failedAt = new Date('2026-03-15T12:00:00.000Z');

describe('dunning schedule', () => {
  it.each([
    { days: [3, 5, 7], expected: ['2026-03-18T12:00:00.000Z', '2026-03-20T12:00:00.000Z', '2026-03-22T12:00:00.000Z'] },
    { days: [1], expected: ['2026-03-16T12:00:00.000Z'] },
    // across the end of March (and the European DST change): 24 h days, UTC
    { days: [14, 30], expected: ['2026-03-29T12:00:00.000Z', '2026-04-14T12:00:00.000Z'] },
    { days: [], expected: [] },
  ])('retries on days $days after the failure', ({ days, expected }) => {
    expect(dunningRetryTimes(failedAt, days).map((d) => d.toISOString())).toEqual(expected);
  });

  it.each([
    { done: 0, step: { retry: 1, dueAt: new Date('2026-03-18T12:00:00.000Z') } },
    { done: 1, step: { retry: 2, dueAt: new Date('2026-03-20T12:00:00.000Z') } },
    { done: 2, step: { retry: 3, dueAt: new Date('2026-03-22T12:00:00.000Z') } },
    { done: 3, step: { finalAction: 'NONE' } },
  ])('after $done retries the next step is $step', ({ done, step }) => {
    expect(nextDunningStep(failedAt, DEFAULT_DUNNING_SCHEDULE, done)).toEqual(step);
  });

  it('goes straight to the final action with no retries', () => {
    expect(nextDunningStep(failedAt, { retryDays: [], finalAction: 'CANCEL_SUBSCRIPTION' }, 0)).toEqual({ finalAction: 'CANCEL_SUBSCRIPTION' });
  });

  it.each([
    { days: [3, 5, 7], problem: null },
    { days: [5, 3], problem: 'days must be strictly increasing, got 5 then 3' },
    { days: [0], problem: 'each day must be a whole number from 1 to 90, got 0' },
    { days: [1.5], problem: 'each day must be a whole number from 1 to 90, got 1.5' },
    { days: [91], problem: 'each day must be a whole number from 1 to 90, got 91' },
    { days: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], problem: 'at most 10 retries' },
  ])('checks retry days $days', ({ days, problem }) => {
    expect(retryDaysProblem(days)).toBe(problem);
  });

  it('shows PAST_DUE only on a running subscription', () => {
    expect(shownSubscriptionStatus('ACTIVE', true)).toBe('PAST_DUE');
    expect(shownSubscriptionStatus('ACTIVE', false)).toBe('ACTIVE');
    expect(shownSubscriptionStatus('CANCELLED', true)).toBe('CANCELLED');
  });
});

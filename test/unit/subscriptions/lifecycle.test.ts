import { describe, expect, it } from 'vitest';
import { currentPeriod, nextTransitionOn, statusOn, transitionEvent, type LifecycleDates } from '../../../src/modules/subscriptions/lifecycle.js';

const base: LifecycleDates = { startDate: '2026-04-01', trialEndDate: null, endDate: null, cancelEffectiveDate: null };

describe('statusOn', () => {
  const cases: [string, Partial<LifecycleDates>, string, string][] = [
    ['before the start', {}, '2026-03-31', 'PENDING_ACTIVATION'],
    ['on the start day', {}, '2026-04-01', 'ACTIVE'],
    ['inside a trial', { trialEndDate: '2026-04-15' }, '2026-04-14', 'TRIAL_ACTIVE'],
    ['on the trial end (exclusive)', { trialEndDate: '2026-04-15' }, '2026-04-15', 'ACTIVE'],
    ['the day before the end date', { endDate: '2026-06-01' }, '2026-05-31', 'ACTIVE'],
    ['on the end date', { endDate: '2026-06-01' }, '2026-06-01', 'COMPLETED'],
    ['on the cancellation date', { cancelEffectiveDate: '2026-05-01' }, '2026-05-01', 'CANCELLED'],
    ['before the cancellation date', { cancelEffectiveDate: '2026-05-01' }, '2026-04-30', 'ACTIVE'],
    ['cancellation before the end date wins', { cancelEffectiveDate: '2026-05-01', endDate: '2026-06-01' }, '2026-07-01', 'CANCELLED'],
    ['end date before the cancellation wins', { cancelEffectiveDate: '2026-07-01', endDate: '2026-06-01' }, '2026-07-02', 'COMPLETED'],
    ['cancelled before it started', { cancelEffectiveDate: '2026-03-20' }, '2026-03-20', 'CANCELLED'],
  ];
  it.each(cases)('%s', (_name, dates, today, expected) => {
    expect(statusOn({ ...base, ...dates }, today)).toBe(expected);
  });
});

describe('nextTransitionOn', () => {
  it('walks pending -> trial -> active -> completed', () => {
    const dates = { ...base, trialEndDate: '2026-04-15', endDate: '2026-06-01' };
    expect(nextTransitionOn(dates, '2026-03-15')).toBe('2026-04-01');
    expect(nextTransitionOn(dates, '2026-04-01')).toBe('2026-04-15');
    expect(nextTransitionOn(dates, '2026-04-20')).toBe('2026-06-01');
    expect(nextTransitionOn(dates, '2026-06-01')).toBeNull();
  });
  it('is null for an open-ended active subscription', () => {
    expect(nextTransitionOn(base, '2026-04-02')).toBeNull();
  });
});

describe('transitionEvent', () => {
  it('names each move', () => {
    expect(transitionEvent('PENDING_ACTIVATION', 'ACTIVE')).toBe('subscription.activated');
    expect(transitionEvent('PENDING_ACTIVATION', 'TRIAL_ACTIVE')).toBe('subscription.trial_started');
    expect(transitionEvent('TRIAL_ACTIVE', 'ACTIVE')).toBe('subscription.trial_ended');
    expect(transitionEvent('ACTIVE', 'CANCELLED')).toBe('subscription.cancelled');
    expect(transitionEvent('ACTIVE', 'COMPLETED')).toBe('subscription.completed');
    expect(transitionEvent('ACTIVE', 'ACTIVE')).toBeNull();
  });
});

describe('currentPeriod', () => {
  const sub = { ...base, billingStartDate: '2026-04-01', anchorDay: 1, term: 'MONTHLY' as const, status: 'ACTIVE' as const };
  it('is the anchored billing period containing today', () => {
    expect(currentPeriod(sub, '2026-05-10')).toEqual({ start: '2026-05-01', end: '2026-06-01' });
  });
  it('is a stub period when the start is off the anchor', () => {
    expect(currentPeriod({ ...sub, startDate: '2026-04-10', billingStartDate: '2026-04-10' }, '2026-04-12')).toEqual({ start: '2026-04-10', end: '2026-05-01' });
  });
  it('is the trial while a free trial runs', () => {
    expect(currentPeriod({ ...sub, trialEndDate: '2026-04-15', billingStartDate: '2026-04-15', status: 'TRIAL_ACTIVE' }, '2026-04-03')).toEqual({ start: '2026-04-01', end: '2026-04-15' });
  });
  it('shows the first period while pending', () => {
    expect(currentPeriod({ ...sub, status: 'PENDING_ACTIVATION' }, '2026-03-15')).toEqual({ start: '2026-04-01', end: '2026-05-01' });
  });
  it('has no end once cancelled', () => {
    expect(currentPeriod({ ...sub, cancelEffectiveDate: '2026-05-20', status: 'CANCELLED' }, '2026-06-10')).toEqual({ start: '2026-05-01', end: null });
  });
});

import { describe, expect, it } from 'vitest';
import { earliestDate } from '../../src/domain/dates.js';
import type { BillingTerm } from '../../src/domain/periods.js';
import {
  currentPeriod, isInForce, nextClockEventOn, nextTransitionOn, shortestTerm, statusOn, stopDate, transitionEvent, type LifecycleDates,
} from '../../src/domain/subscription-lifecycle.js';

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

describe('stopDate', () => {
  it.each<[string, Partial<LifecycleDates>, string | null]>([
    ['open-ended, not cancelled', {}, null],
    ['the end date', { endDate: '2026-06-01' }, '2026-06-01'],
    ['the cancellation date', { cancelEffectiveDate: '2026-05-01' }, '2026-05-01'],
    ['a cancellation before the end date', { cancelEffectiveDate: '2026-05-01', endDate: '2026-06-01' }, '2026-05-01'],
    ['an end date before the cancellation', { cancelEffectiveDate: '2026-07-01', endDate: '2026-06-01' }, '2026-06-01'],
    ['both on one day', { cancelEffectiveDate: '2026-06-01', endDate: '2026-06-01' }, '2026-06-01'],
  ])('%s', (_name, dates, expected) => {
    expect(stopDate({ ...base, ...dates })).toBe(expected);
  });
});

describe('earliestDate', () => {
  it.each<[string, (string | null | undefined)[], string | null]>([
    ['nothing given', [], null],
    ['only missing dates', [null, undefined], null],
    ['one date among missing ones', [null, '2026-05-01', undefined], '2026-05-01'],
    ['the earliest by calendar, whatever the order', ['2026-12-01', '2026-02-28', '2026-11-30'], '2026-02-28'],
  ])('%s', (_name, dates, expected) => {
    expect(earliestDate(...dates)).toBe(expected);
  });
});

describe('isInForce (effective ranges are [from, to))', () => {
  it.each<[string, string, string | null, string, boolean]>([
    ['the day before it opens', '2026-04-10', null, '2026-04-09', false],
    ['the day it opens', '2026-04-10', null, '2026-04-10', true],
    ['an open range, years later', '2026-04-10', null, '2030-01-01', true],
    ['the last day before it closes', '2026-04-10', '2026-05-10', '2026-05-09', true],
    ['the day it closes (exclusive)', '2026-04-10', '2026-05-10', '2026-05-10', false],
    ['a range closed the day it opened (an immediate change)', '2026-04-10', '2026-04-10', '2026-04-10', false],
  ])('%s', (_name, from, to, date, expected) => {
    expect(isInForce(from, to, date)).toBe(expected);
  });
});

describe('shortestTerm (the subscription term)', () => {
  it.each<[string, (BillingTerm | 'ONE_TIME')[], BillingTerm]>([
    ['monthly when there are no fees', [], 'MONTHLY'],
    ['monthly when every fee is one-time', ['ONE_TIME'], 'MONTHLY'],
    ['the only recurring term', ['ANNUAL', 'ONE_TIME'], 'ANNUAL'],
    ['the shortest recurring term', ['ANNUAL', 'QUARTERLY', 'SEMIANNUAL'], 'QUARTERLY'],
    ['the shortest whatever the order', ['QUARTERLY', 'ANNUAL', 'MONTHLY', 'ONE_TIME'], 'MONTHLY'],
  ])('%s', (_name, terms, expected) => {
    expect(shortestTerm(terms)).toBe(expected);
  });
});

describe('nextClockEventOn (next_transition_on: a status change or a scheduled plan change)', () => {
  it.each<[string, Partial<LifecycleDates>, string, string | null, string | null]>([
    ['open-ended, nothing scheduled', {}, '2026-04-10', null, null],
    ['pending: the start', {}, '2026-03-10', null, '2026-04-01'],
    ['a plan change before the end date', { endDate: '2026-09-01' }, '2026-04-10', '2026-05-01', '2026-05-01'],
    ['the end date before a plan change', { endDate: '2026-05-01' }, '2026-04-10', '2026-06-01', '2026-05-01'],
    ['the trial end before a plan change', { trialEndDate: '2026-04-15' }, '2026-04-10', '2026-05-01', '2026-04-15'],
    ['stopped: a left-over scheduled change is ignored', { cancelEffectiveDate: '2026-04-05' }, '2026-04-10', '2026-05-01', null],
  ])('%s', (_name, dates, today, scheduled, expected) => {
    expect(nextClockEventOn({ ...base, ...dates }, today, scheduled)).toBe(expected);
  });
});

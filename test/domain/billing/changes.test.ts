import { describe, expect, it } from 'vitest';
import { adjustmentPlanOn, computeSubscriptionInvoice, invoicesDue, type SubscriptionSnapshot } from '../../../src/domain/billing/index.js';
import { component, FR_ENTITY, NO_TAX_CUSTOMER, perUnit, rate, slot, snapshot } from './fixtures.js';

const run = (snap: SubscriptionSnapshot, asOf: string, usage: Record<string, string> = {}) =>
  invoicesDue(snap, [], asOf).map((occasion) => {
    const result = computeSubscriptionInvoice(snap, occasion, usage, NO_TAX_CUSTOMER, FR_ENTITY);
    return {
      kind: occasion.kind,
      date: occasion.invoiceDate,
      lines: result.invoice.lines.map((l) => [l.name, l.amountMinor]),
      totalMinor: result.invoice.totalMinor,
      creditMinor: result.invoice.creditCarriedForwardMinor,
    };
  });

// Leap February 2024: 29 days, a change on Feb 15 leaves 15 of them.
describe('mid-period changes (February 2024, change on the 15th: 15 of 29 days)', () => {
  it('upgrade: credit the unused old, charge the new part, invoiced at once', () => {
    const snap = snapshot([
      component('basic', rate('29.00'), { name: 'Basic', effectiveTo: '2024-02-15' }),
      component('pro', rate('58.00'), { name: 'Pro', effectiveFrom: '2024-02-15' }),
    ]);
    expect(adjustmentPlanOn(snap, '2024-02-15')).toMatchObject({ netMinor: 1500n, settlement: 'INVOICE_NOW' });
    expect(run(snap, '2024-03-01')).toEqual([
      { kind: 'FIRST', date: '2024-01-01', lines: [['Basic', 2900n]], totalMinor: 2900n, creditMinor: 0n },
      { kind: 'RENEWAL', date: '2024-02-01', lines: [['Basic', 2900n]], totalMinor: 2900n, creditMinor: 0n },
      {
        kind: 'ADJUSTMENT',
        date: '2024-02-15',
        lines: [['Unused time: Basic (2024-02-15 to 2024-03-01)', -1500n], ['Remaining time: Pro (2024-02-15 to 2024-03-01)', 3000n]],
        totalMinor: 1500n,
        creditMinor: 0n,
      },
      { kind: 'RENEWAL', date: '2024-03-01', lines: [['Pro', 5800n]], totalMinor: 5800n, creditMinor: 0n },
    ]);
  });

  it('downgrade: the net credit is carried to the next invoice', () => {
    const snap = snapshot([
      component('pro', rate('58.00'), { name: 'Pro', effectiveTo: '2024-02-15' }),
      component('basic', rate('29.00'), { name: 'Basic', effectiveFrom: '2024-02-15' }),
    ]);
    expect(adjustmentPlanOn(snap, '2024-02-15').settlement).toBe('CARRY_TO_NEXT_INVOICE');
    const invoices = run(snap, '2024-03-01');
    expect(invoices.map((i) => i.date)).toEqual(['2024-01-01', '2024-02-01', '2024-03-01']);
    expect(invoices[2]).toEqual({
      kind: 'RENEWAL',
      date: '2024-03-01',
      lines: [['Basic', 2900n], ['Unused time: Pro (2024-02-15 to 2024-03-01)', -3000n], ['Remaining time: Basic (2024-02-15 to 2024-03-01)', 1500n]],
      totalMinor: 1400n,
      creditMinor: 0n,
    });
  });

  it('a backdated downgrade lands on the first invoice not yet created', () => {
    const snap = snapshot([
      component('pro', rate('58.00'), { name: 'Pro', effectiveTo: '2024-02-15' }),
      component('basic', rate('29.00'), { name: 'Basic', effectiveFrom: '2024-02-15' }),
    ]);
    const due = invoicesDue(snap, [{ invoiceDate: '2024-01-01' }, { invoiceDate: '2024-02-01' }, { invoiceDate: '2024-03-01' }], '2024-04-01');
    expect(due.map((o) => [o.invoiceDate, o.adjustmentDates])).toEqual([['2024-04-01', ['2024-02-15']]]);
  });

  it('slot change 10 -> 12 seats at 10.00', () => {
    const snap = snapshot([
      component('seats-10', slot('10.00', 10), { name: 'Seats', effectiveTo: '2024-02-15' }),
      component('seats-12', slot('10.00', 12), { name: 'Seats', effectiveFrom: '2024-02-15' }),
    ]);
    const adjustment = run(snap, '2024-02-20')[2]!;
    // 100 × 15/29 = 51.724.. and 120 × 15/29 = 62.068..
    expect([adjustment.kind, adjustment.lines.map((l) => l[1]), adjustment.totalMinor]).toEqual(['ADJUSTMENT', [-5172n, 6207n], 1035n]);
  });

  it('add-on added mid-period with a setup fee: prorated charge plus the one-time fee, on one adjustment invoice', () => {
    const snap = snapshot([
      component('plan', rate('29.00')),
      component('addon', rate('15.00'), { name: 'Support', effectiveFrom: '2024-02-20' }),
      component('addon-setup', { kind: 'ONE_TIME', quantity: '1', unitPrice: '5.00' }, { name: 'Support setup', effectiveFrom: '2024-02-20' }),
    ]);
    const invoices = run(snap, '2024-03-01');
    // 15 × 10/29 = 5.172..
    expect(invoices[2]).toMatchObject({ kind: 'ADJUSTMENT', date: '2024-02-20', lines: [['Remaining time: Support (2024-02-20 to 2024-03-01)', 517n], ['Support setup', 500n]], totalMinor: 1017n });
    expect(invoices[3]).toMatchObject({ kind: 'RENEWAL', lines: [['plan', 2900n], ['Support', 1500n]] });
  });

  it('a change on a boundary needs no proration', () => {
    const snap = snapshot([
      component('basic', rate('29.00'), { name: 'Basic', effectiveTo: '2024-02-01' }),
      component('pro', rate('58.00'), { name: 'Pro', effectiveFrom: '2024-02-01' }),
    ]);
    expect(run(snap, '2024-02-01').map((i) => i.lines)).toEqual([[['Basic', 2900n]], [['Pro', 5800n]]]);
  });

  it('usage component replaced mid-period: each billed for its own days at the renewal', () => {
    const snap = snapshot([
      component('plan', rate('10.00')),
      component('api-old', perUnit('m1', '0.10'), { effectiveTo: '2024-01-20' }),
      component('api-new', perUnit('m1', '0.05'), { effectiveFrom: '2024-01-20' }),
    ]);
    const occasion = invoicesDue(snap, [], '2024-02-01')[1]!;
    const result = computeSubscriptionInvoice(snap, occasion, { 'api-old': '100', 'api-new': '100' }, NO_TAX_CUSTOMER, FR_ENTITY);
    expect(result.invoice.lines.map((l) => [l.name, l.periodStart, l.periodEnd, l.amountMinor])).toEqual([
      ['plan', '2024-02-01', '2024-03-01', 1000n],
      ['api-old', '2024-01-01', '2024-01-20', 1000n],
      ['api-new', '2024-01-20', '2024-02-01', 500n],
    ]);
  });
});

describe('cancellation', () => {
  const components = [component('plan', rate('29.00'), { name: 'Plan' }), component('api', perUnit('m1', '0.10'), { name: 'API' })];

  it('at period end: a final invoice with the last period\'s arrears only', () => {
    const snap = snapshot(components, { cancellation: { mode: 'END_OF_PERIOD', effectiveDate: '2024-03-01' } });
    const invoices = run(snap, '2024-03-05', { api: '100' });
    expect(invoices.map((i) => [i.kind, i.date, i.totalMinor])).toEqual([['FIRST', '2024-01-01', 2900n], ['RENEWAL', '2024-02-01', 3900n], ['FINAL', '2024-03-01', 1000n]]);
    expect(invoices[2]!.lines).toEqual([['API', 1000n]]);
  });

  it('immediate: final invoice with the arrears so far and a prorated credit of the unused days', () => {
    const snap = snapshot(components, { cancellation: { mode: 'IMMEDIATE', effectiveDate: '2024-02-15' } });
    const invoices = run(snap, '2024-02-15', { api: '100' });
    expect(invoices.map((i) => [i.kind, i.date])).toEqual([['FIRST', '2024-01-01'], ['RENEWAL', '2024-02-01'], ['FINAL', '2024-02-15']]);
    expect(invoices[2]).toMatchObject({ lines: [['API', 1000n], ['Unused time: Plan (2024-02-15 to 2024-03-01)', -1500n]], totalMinor: -500n, creditMinor: 500n });
  });

  it('immediate during the first period still bills that period\'s usage', () => {
    const snap = snapshot(components, { cancellation: { mode: 'IMMEDIATE', effectiveDate: '2024-01-11' } });
    const final = run(snap, '2024-01-31', { api: '10' })[1]!;
    // usage 1.00; credit 29 × 21/31 = 19.645..
    expect(final).toMatchObject({ kind: 'FINAL', lines: [['API', 100n], ['Unused time: Plan (2024-01-11 to 2024-02-01)', -1965n]], totalMinor: -1865n });
  });

  it('immediate during a long first quarterly period: credited at the same daily rate it was charged', () => {
    const snap = snapshot([component('support', rate('300.00'), { name: 'Support', term: 'QUARTERLY' })], {
      startDate: '2026-01-10',
      cancellation: { mode: 'IMMEDIATE', effectiveDate: '2026-03-02' },
    });
    const invoices = run(snap, '2026-03-02');
    // charged 300 × 81/90 = 270.00 for [Jan 10, Apr 1); credited 300 × 30/90 = 100.00 for [Mar 2, Apr 1): 170.00 kept for 51 days
    expect(invoices.map((i) => [i.kind, i.date, i.lines])).toEqual([
      ['FIRST', '2026-01-10', [['Support', 27000n]]],
      ['FINAL', '2026-03-02', [['Unused time: Support (2026-03-02 to 2026-04-01)', -10000n]]],
    ]);
  });

  it('at period end with an annual component paid beyond it: the unused days of the year are credited', () => {
    const snap = snapshot([component('plan', rate('10.00'), { name: 'Plan' }), component('support', rate('120.00'), { name: 'Support', term: 'ANNUAL' })], {
      cancellation: { mode: 'END_OF_PERIOD', effectiveDate: '2024-03-01' },
    });
    const final = run(snap, '2024-03-01').at(-1)!;
    // 120 × 306/366 (Mar 1 2024 -> Jan 1 2025 of a leap year) = 100.327..
    expect(final).toMatchObject({ kind: 'FINAL', lines: [['Unused time: Support (2024-03-01 to 2025-01-01)', -10033n]], totalMinor: -10033n });
  });
});

import { describe, expect, it } from 'vitest';
import { computeSubscriptionInvoice, invoicesDue, nextOccasion, type BillingOccasion } from '../../../src/domain/billing/index.js';
import { component, NO_TAX_CUSTOMER, FR_ENTITY, perUnit, rate, snapshot } from './fixtures.js';

const brief = (occasions: BillingOccasion[]) => occasions.map((o) => [o.kind, o.invoiceDate, o.periodEnd]);
const totals = (snap: Parameters<typeof invoicesDue>[0], occasions: BillingOccasion[], usage: Record<string, string> = {}) =>
  occasions.map((o) => computeSubscriptionInvoice(snap, o, usage, NO_TAX_CUSTOMER, FR_ENTITY).invoice.totalMinor);

describe('invoicesDue: one invoice per billing boundary', () => {
  it.each([
    ['leap 2024', '2024-01-31', [['FIRST', '2024-01-31', '2024-02-29'], ['RENEWAL', '2024-02-29', '2024-03-31'], ['RENEWAL', '2024-03-31', '2024-04-30'], ['RENEWAL', '2024-04-30', '2024-05-31']]],
    ['2025', '2025-01-31', [['FIRST', '2025-01-31', '2025-02-28'], ['RENEWAL', '2025-02-28', '2025-03-31'], ['RENEWAL', '2025-03-31', '2025-04-30'], ['RENEWAL', '2025-04-30', '2025-05-31']]],
  ])('anchor 31 through February (%s): full months, each 31.00', (_name, startDate, expected) => {
    const snap = snapshot([component('plan', rate('31.00'))], { startDate, billingDayAnchor: 31 });
    const due = invoicesDue(snap, [], startDate.replace('-01-31', '-05-15'));
    expect(brief(due)).toEqual(expected);
    expect(totals(snap, due)).toEqual([3100n, 3100n, 3100n, 3100n]);
  });

  it.each([
    [29, ['2025-01-29', '2025-02-28', '2025-03-29']],
    [30, ['2025-01-30', '2025-02-28', '2025-03-30']],
    [29, ['2024-01-29', '2024-02-29', '2024-03-29']],
  ])('anchor %i clamps in February and comes back', (anchor, expected) => {
    const startDate = expected[0]!;
    const snap = snapshot([component('plan', rate('10.00'))], { startDate, billingDayAnchor: anchor });
    expect(invoicesDue(snap, [], expected[2]!).map((o) => o.invoiceDate)).toEqual(expected);
    expect(totals(snap, invoicesDue(snap, [], expected[2]!))).toEqual([1000n, 1000n, 1000n]);
  });

  it('first partial period is prorated by days (Jan 15 -> Feb 1 is 17/31)', () => {
    const snap = snapshot([component('plan', rate('10.00'))], { startDate: '2024-01-15' });
    const due = invoicesDue(snap, [], '2024-02-01');
    expect(brief(due)).toEqual([['FIRST', '2024-01-15', '2024-02-01'], ['RENEWAL', '2024-02-01', '2024-03-01']]);
    // 10 × 17/31 = 5.4838.. -> 5.48
    expect(totals(snap, due)).toEqual([548n, 1000n]);
  });

  it('quarterly and annual components bill on their own cycles next to a monthly one', () => {
    const snap = snapshot([
      component('monthly', rate('10.00')),
      component('quarterly', rate('90.00'), { term: 'QUARTERLY' }),
      component('annual', rate('120.00'), { term: 'ANNUAL' }),
    ]);
    const due = invoicesDue(snap, [], '2024-04-01');
    expect(due.map((o) => o.invoiceDate)).toEqual(['2024-01-01', '2024-02-01', '2024-03-01', '2024-04-01']);
    expect(totals(snap, due)).toEqual([22000n, 1000n, 1000n, 10000n]);
  });

  it('mixed terms from Jan 10 with anchor 1: each component on its own grid, first periods prorated, no second charge weeks later', () => {
    const snap = snapshot(
      [
        component('monthly', rate('10.00')),
        component('quarterly', rate('300.00'), { term: 'QUARTERLY' }),
        component('annual', rate('1200.00'), { term: 'ANNUAL' }),
        component('api', perUnit('m1', '0.10'), { term: 'QUARTERLY' }),
      ],
      { startDate: '2026-01-10' },
    );
    const due = invoicesDue(snap, [], '2026-04-01');
    expect(brief(due)).toEqual([['FIRST', '2026-01-10', '2026-02-01'], ['RENEWAL', '2026-02-01', '2026-03-01'], ['RENEWAL', '2026-03-01', '2026-04-01'], ['RENEWAL', '2026-04-01', '2026-05-01']]);
    const lines = due.map((o) => computeSubscriptionInvoice(snap, o, { api: '100' }, NO_TAX_CUSTOMER, FR_ENTITY).invoice.lines.map((l) => [l.name, l.periodStart, l.periodEnd, l.amountMinor]));
    // Jan 10: 10 × 22/31 = 7.096.. -> 7.10; 300 × 81/90 = 270.00 ([Jan 10, Apr 1)); 1200 × 356/365 = 1170.410.. -> 1170.41 ([Jan 10, 2027-01-01))
    expect(lines[0]).toEqual([['monthly', '2026-01-10', '2026-02-01', 710n], ['quarterly', '2026-01-10', '2026-04-01', 27000n], ['annual', '2026-01-10', '2027-01-01', 117041n]]);
    expect(lines[1]).toEqual([['monthly', '2026-02-01', '2026-03-01', 1000n]]);
    expect(lines[2]).toEqual([['monthly', '2026-03-01', '2026-04-01', 1000n]]);
    // Apr 1: the next quarter in advance, the usage of the first quarterly period [Jan 10, Apr 1) in arrears
    expect(lines[3]).toEqual([['monthly', '2026-04-01', '2026-05-01', 1000n], ['quarterly', '2026-04-01', '2026-07-01', 30000n], ['api', '2026-01-10', '2026-04-01', 1000n]]);
  });

  it('catches up 3 missed periods, oldest first, skipping what is already invoiced', () => {
    const snap = snapshot([component('plan', rate('10.00'))]);
    const due = invoicesDue(snap, [{ invoiceDate: '2024-01-01' }], '2024-04-15');
    expect(brief(due)).toEqual([['RENEWAL', '2024-02-01', '2024-03-01'], ['RENEWAL', '2024-03-01', '2024-04-01'], ['RENEWAL', '2024-04-01', '2024-05-01']]);
    expect(invoicesDue(snap, [{ invoiceDate: '2024-01-01' }, ...due], '2024-04-15')).toEqual([]);
  });

  it('a backdated subscription without skip_past_invoices gets one invoice per past period', () => {
    const snap = snapshot([component('plan', rate('10.00'))], { startDate: '2023-11-01' });
    expect(invoicesDue(snap, [], '2024-02-10').map((o) => o.invoiceDate)).toEqual(['2023-11-01', '2023-12-01', '2024-01-01', '2024-02-01']);
  });

  it.each([
    ['imported mid-period: the running period was billed by the old system', '2024-04-15', []],
    ['imported on a boundary: that renewal is ours', '2024-04-01', ['2024-04-01']],
  ])('skip_past_invoices, %s', (_name, importedOn, expected) => {
    const snap = snapshot([component('plan', rate('10.00'))]);
    expect(invoicesDue(snap, [], '2024-04-15', { skipPastInvoices: true, importedOn }).map((o) => o.invoiceDate)).toEqual(expected);
    // later runs keep the import day, so the next boundary is billed
    expect(invoicesDue(snap, [], '2024-05-01', { skipPastInvoices: true, importedOn }).map((o) => o.invoiceDate)).toEqual([...expected, '2024-05-01']);
  });

  it('free trial bills nothing during the trial, then a prorated first period', () => {
    const snap = snapshot([component('plan', rate('31.00'))], { trial: { endDate: '2024-01-15', isFree: true } });
    expect(invoicesDue(snap, [], '2024-01-14')).toEqual([]);
    const due = invoicesDue(snap, [], '2024-02-01');
    expect(brief(due)).toEqual([['FIRST', '2024-01-15', '2024-02-01'], ['RENEWAL', '2024-02-01', '2024-03-01']]);
    expect(totals(snap, due)).toEqual([1700n, 3100n]);
  });

  it('paid trial bills like no trial', () => {
    const snap = snapshot([component('plan', rate('31.00'))], { trial: { endDate: '2024-01-15', isFree: false } });
    const due = invoicesDue(snap, [], '2024-01-02');
    expect(brief(due)).toEqual([['FIRST', '2024-01-01', '2024-02-01']]);
    expect(totals(snap, due)).toEqual([3100n]);
  });

  it('cancelled during a free trial: nothing at all', () => {
    const snap = snapshot([component('plan', rate('31.00')), component('api', perUnit('m1', '0.10'))], {
      trial: { endDate: '2024-01-15', isFree: true },
      cancellation: { mode: 'IMMEDIATE', effectiveDate: '2024-01-10' },
    });
    expect(invoicesDue(snap, [], '2024-03-01')).toEqual([]);
  });

  it('usage-only plan: no first invoice (nothing to bill), renewals carry the usage', () => {
    const snap = snapshot([component('api', perUnit('m1', '0.10'))]);
    expect(brief(invoicesDue(snap, [], '2024-02-01'))).toEqual([['RENEWAL', '2024-02-01', '2024-03-01']]);
  });

  it('contract end date: last period cut and prorated, then a final arrears-only invoice', () => {
    const snap = snapshot([component('plan', rate('29.00')), component('api', perUnit('m1', '0.10'))], { endDate: '2024-02-15' });
    const due = invoicesDue(snap, [], '2024-03-01');
    expect(brief(due)).toEqual([['FIRST', '2024-01-01', '2024-02-01'], ['RENEWAL', '2024-02-01', '2024-02-15'], ['FINAL', '2024-02-15', '2024-02-15']]);
    // Feb 1: 29 × 14/29 + 100 × 0.10 (January usage); final: usage [Feb 1, Feb 15) only
    expect(totals(snap, due, { api: '100' })).toEqual([2900n, 2400n, 1000n]);
  });

  it('nextOccasion previews the coming renewal', () => {
    const snap = snapshot([component('plan', rate('10.00'))]);
    expect(nextOccasion(snap, '2024-01-10')?.invoiceDate).toBe('2024-02-01');
    expect(nextOccasion(snap, '2023-12-10')?.kind).toBe('FIRST');
  });
});


// The subscription's next_invoice_date is nextOccasion; this table checks it against what the
// billing run issues (invoicesDue over the next years), and states the date by hand.
describe('nextOccasion: the next invoice the run will issue', () => {
  const monthly = component('plan', rate('10.00'));
  const annual = component('annual', rate('120.00'), { term: 'ANNUAL' });
  const usage = component('api', perUnit('m1', '0.10'));
  const oneTime = component('setup', { kind: 'ONE_TIME', quantity: '1', unitPrice: '50.00' });
  const cases: [string, ReturnType<typeof snapshot>, string, string | null][] = [
    ['monthly, mid-period', snapshot([monthly]), '2024-01-10', '2024-02-01'],
    ['monthly, on a boundary: the following one', snapshot([monthly]), '2024-02-01', '2024-03-01'],
    ['anchor 31 clamped to February', snapshot([monthly], { startDate: '2024-01-31', billingDayAnchor: 31 }), '2024-02-10', '2024-02-29'],
    ['off-anchor start: the stub ends on the anchor', snapshot([monthly], { startDate: '2024-01-15' }), '2024-01-20', '2024-02-01'],
    ['pending: the start', snapshot([monthly], { startDate: '2024-03-10', billingDayAnchor: 10 }), '2024-02-01', '2024-03-10'],
    ['free trial: its end', snapshot([monthly], { trial: { endDate: '2024-01-15', isFree: true }, billingDayAnchor: 15 }), '2024-01-05', '2024-01-15'],
    ['paid trial: billed like no trial', snapshot([monthly], { trial: { endDate: '2024-01-15', isFree: false } }), '2024-01-05', '2024-02-01'],
    ['free trial of a usage-only plan: the first renewal (the trial end bills nothing)', snapshot([usage], { trial: { endDate: '2024-01-15', isFree: true }, billingDayAnchor: 15 }), '2024-01-05', '2024-02-15'],
    ['mixed terms: the monthly boundary', snapshot([monthly, annual]), '2024-03-10', '2024-04-01'],
    ['annual only', snapshot([annual]), '2024-03-10', '2025-01-01'],
    [
      'the monthly fee closed, an annual one left: its renewal, past empty monthly boundaries',
      snapshot([{ ...monthly, effectiveTo: '2024-03-01' }, annual]),
      '2024-03-10',
      '2025-01-01',
    ],
    ['cancelled mid-period: the final invoice crediting the unused days', snapshot([monthly], { cancellation: { mode: 'IMMEDIATE', effectiveDate: '2024-03-20' } }), '2024-03-10', '2024-03-20'],
    ['cancelled at a period end, advance fees only: no invoice left', snapshot([monthly], { cancellation: { mode: 'END_OF_PERIOD', effectiveDate: '2024-04-01' } }), '2024-03-10', null],
    ['cancelled at a period end, with usage: the final arrears', snapshot([monthly, usage], { cancellation: { mode: 'END_OF_PERIOD', effectiveDate: '2024-04-01' } }), '2024-03-10', '2024-04-01'],
    ['end date ahead, with usage: the final arrears on it', snapshot([monthly, usage], { endDate: '2024-04-15' }), '2024-04-05', '2024-04-15'],
    ['ended', snapshot([monthly, usage], { endDate: '2024-03-01' }), '2024-03-10', null],
    ['one-time fees only, after the first invoice', snapshot([oneTime]), '2024-01-10', null],
  ];
  it.each(cases)('%s', (_name, snap, asOf, expected) => {
    const issued = invoicesDue(snap, [], '2027-01-01').find((occasion) => occasion.invoiceDate > asOf)?.invoiceDate ?? null;
    expect(nextOccasion(snap, asOf)?.invoiceDate ?? null).toBe(expected);
    expect(issued).toBe(expected);
  });
});

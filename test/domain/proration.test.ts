import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decimal, toMinor } from '../../src/kernel/money.js';
import { addDays } from '../../src/domain/dates.js';
import { BillingRuleError } from '../../src/domain/errors.js';
import { periodAt, type BillingPeriod } from '../../src/domain/periods.js';
import { planAdjustment, prorateChange, prorateSlotChange, type RecurringItem } from '../../src/domain/proration.js';

const d = decimal;
const mustPeriod = (p: BillingPeriod | null): BillingPeriod => {
  if (p === null) throw new Error('period expected');
  return p;
};
// [2024-02-01, 2024-03-01): 29 days, leap February.
const february = mustPeriod(periodAt({ startDate: '2024-01-01', anchorDay: 1, term: 'MONTHLY' }, 1));
// Stub [2024-01-15, 2024-02-01): 17 of 31 days.
const januaryStub = mustPeriod(periodAt({ startDate: '2024-01-15', anchorDay: 1, term: 'MONTHLY' }, 0));
const item = (key: string, amount: string, name = key): RecurringItem => ({ key, name, fullPeriodAmount: d(amount) });
const minorOf = (lines: ReturnType<typeof prorateChange>) => lines.map((line) => [line.kind, line.key, toMinor(line.amount, 'EUR')]);

describe('prorated plan and add-on changes', () => {
  it.each<[string, BillingPeriod, string, RecurringItem[], RecurringItem[], [string, string, bigint][], bigint, string]>([
    ['upgrade on Feb 15 (15 of 29 days left, the change day included)', february, '2024-02-15', [item('plan', '29.00')], [item('plan', '58.00')], [['CREDIT', 'plan', -1500n], ['CHARGE', 'plan', 3000n]], 1500n, 'INVOICE_NOW'],
    ['downgrade mid-February', february, '2024-02-15', [item('plan', '58.00')], [item('plan', '29.00')], [['CREDIT', 'plan', -3000n], ['CHARGE', 'plan', 1500n]], -1500n, 'CARRY_TO_NEXT_INVOICE'],
    ['change on the first day swaps the whole period', february, '2024-02-01', [item('plan', '29.00')], [item('plan', '58.00')], [['CREDIT', 'plan', -2900n], ['CHARGE', 'plan', 5800n]], 2900n, 'INVOICE_NOW'],
    ['change on the last day (leap day) leaves one day', february, '2024-02-29', [item('plan', '29.00')], [item('plan', '58.00')], [['CREDIT', 'plan', -100n], ['CHARGE', 'plan', 200n]], 100n, 'INVOICE_NOW'],
    ['plan switch with different components', february, '2024-02-15', [item('basic', '29.00')], [item('pro', '58.00')], [['CREDIT', 'basic', -1500n], ['CHARGE', 'pro', 3000n]], 1500n, 'INVOICE_NOW'],
    ['add-on added Feb 20 (10 of 29 days: 5.1724.. -> 5.17)', february, '2024-02-20', [], [item('addon', '15.00')], [['CHARGE', 'addon', 517n]], 517n, 'INVOICE_NOW'],
    ['add-on removed mirrors the charge', february, '2024-02-20', [item('addon', '15.00')], [], [['CREDIT', 'addon', -517n]], -517n, 'CARRY_TO_NEXT_INVOICE'],
    ['unchanged items produce nothing', february, '2024-02-20', [item('plan', '29.00'), item('addon', '15.00')], [item('plan', '29.00')], [['CREDIT', 'addon', -517n]], -517n, 'CARRY_TO_NEXT_INVOICE'],
    ['nothing changed at all', february, '2024-02-20', [item('plan', '29.00')], [item('plan', '29.00')], [], 0n, 'NONE'],
    ['inside a stub period the daily rate is the full month\'s (12 of 31 days)', januaryStub, '2024-01-20', [item('plan', '31.00')], [item('plan', '62.00')], [['CREDIT', 'plan', -1200n], ['CHARGE', 'plan', 2400n]], 1200n, 'INVOICE_NOW'],
  ])('%s', (_name, period, changeDate, before, after, expectedLines, expectedNet, expectedSettlement) => {
    const lines = prorateChange(period, changeDate, before, after);
    expect(minorOf(lines)).toEqual(expectedLines);
    const plan = planAdjustment(lines, 'EUR');
    expect([plan.netMinor, plan.settlement]).toEqual([expectedNet, expectedSettlement]);
  });

  it('slot change 10 -> 12 seats at 10.00 on Feb 15', () => {
    const lines = prorateSlotChange(february, '2024-02-15', { key: 'seats', name: 'Seats', unitPrice: d('10.00'), fromSlots: 10n, toSlots: 12n });
    // 100 × 15/29 = 51.7241.. and 120 × 15/29 = 62.0689..
    expect(minorOf(lines)).toEqual([['CREDIT', 'seats', -5172n], ['CHARGE', 'seats', 6207n]]);
    expect(lines.map((line) => line.name)).toEqual(['Unused time: Seats × 10 (2024-02-15 to 2024-03-01)', 'Remaining time: Seats × 12 (2024-02-15 to 2024-03-01)']);
  });

  it('slot count to zero only credits', () => {
    const lines = prorateSlotChange(february, '2024-02-15', { key: 'seats', name: 'Seats', unitPrice: d('10.00'), fromSlots: 1n, toSlots: 0n });
    expect(minorOf(lines)).toEqual([['CREDIT', 'seats', -517n]]);
  });

  it.each(['2024-01-31', '2024-03-01'])('refuses a change date %s outside the period', (changeDate) => {
    expect(() => prorateChange(february, changeDate, [], [])).toThrow(BillingRuleError);
  });

  it('a credit always mirrors the charge for the same item and days', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 9n }), fc.integer({ min: 0, max: 28 }), (cents, offset) => {
        const amount = d(cents).div(100);
        const changeDate = addDays(february.start, offset);
        const [charge] = prorateChange(february, changeDate, [], [item('x', amount.toString())]);
        const [credit] = prorateChange(february, changeDate, [item('x', amount.toString())], []);
        expect(toMinor(charge!.amount, 'EUR') + toMinor(credit!.amount, 'EUR')).toBe(0n);
      }),
    );
  });
});

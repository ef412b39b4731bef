import { describe, expect, it } from 'vitest';
import { BillingRuleError } from '../../src/domain/errors.js';
import type { BillingSchedule } from '../../src/domain/periods.js';
import { chargeSlotsDue, invoiceWindows, type FeeTimingSpec, type InvoiceOccasion } from '../../src/domain/timing.js';

const window = (p: { start: string; end: string } | null) => (p === null ? null : `${p.start}..${p.end}`);

describe('which parts of a fee each invoice carries', () => {
  it.each<[string, FeeTimingSpec, InvoiceOccasion, string[]]>([
    ['rate on the first invoice', { kind: 'RATE' }, 'FIRST', ['RATE/ADVANCE']],
    ['rate on a renewal', { kind: 'RATE' }, 'RENEWAL', ['RATE/ADVANCE']],
    ['rate on the final invoice: nothing', { kind: 'RATE' }, 'FINAL', []],
    ['slot in advance', { kind: 'SLOT' }, 'RENEWAL', ['SLOT/ADVANCE']],
    ['capacity first invoice: base only', { kind: 'CAPACITY' }, 'FIRST', ['CAPACITY_BASE/ADVANCE']],
    ['capacity renewal: base ahead, overage behind', { kind: 'CAPACITY' }, 'RENEWAL', ['CAPACITY_BASE/ADVANCE', 'CAPACITY_OVERAGE/ARREARS']],
    ['capacity final: overage only', { kind: 'CAPACITY' }, 'FINAL', ['CAPACITY_OVERAGE/ARREARS']],
    ['usage never on the first invoice', { kind: 'USAGE' }, 'FIRST', []],
    ['usage on renewal', { kind: 'USAGE' }, 'RENEWAL', ['USAGE/ARREARS']],
    ['usage on final', { kind: 'USAGE' }, 'FINAL', ['USAGE/ARREARS']],
    ['extra recurring in advance', { kind: 'EXTRA_RECURRING', billing: 'ADVANCE' }, 'FIRST', ['EXTRA_RECURRING/ADVANCE']],
    ['extra recurring in arrears skips the first invoice', { kind: 'EXTRA_RECURRING', billing: 'ARREARS' }, 'FIRST', []],
    ['extra recurring in arrears on final', { kind: 'EXTRA_RECURRING', billing: 'ARREARS' }, 'FINAL', ['EXTRA_RECURRING/ARREARS']],
    ['one-time on the first invoice', { kind: 'ONE_TIME' }, 'FIRST', ['ONE_TIME/ONCE']],
    ['one-time never again', { kind: 'ONE_TIME' }, 'RENEWAL', []],
  ])('%s', (_name, fee, occasion, expected) => {
    expect(chargeSlotsDue(fee, occasion).map((slot) => `${slot.part}/${slot.timing}`)).toEqual(expected);
  });
});

describe('billing windows per schedule', () => {
  const monthly: BillingSchedule = { startDate: '2024-01-15', anchorDay: 1, term: 'MONTHLY' };
  const quarterly: BillingSchedule = { ...monthly, term: 'QUARTERLY' };

  it.each<[string, BillingSchedule, string, InvoiceOccasion, string | null, string | null]>([
    ['first invoice: prorated stub in advance, no arrears', monthly, '2024-01-15', 'FIRST', '2024-01-15..2024-02-01', null],
    ['first renewal: February ahead, the stub behind', monthly, '2024-02-01', 'RENEWAL', '2024-02-01..2024-03-01', '2024-01-15..2024-02-01'],
    ['quarterly component on its first boundary: next quarter ahead, the first period behind', quarterly, '2024-04-01', 'RENEWAL', '2024-04-01..2024-07-01', '2024-01-15..2024-04-01'],
    ['quarterly component on a later quarter boundary', quarterly, '2024-07-01', 'RENEWAL', '2024-07-01..2024-10-01', '2024-04-01..2024-07-01'],
    ['quarterly first invoice: the first period runs to one quarter later on the anchor', quarterly, '2024-01-15', 'FIRST', '2024-01-15..2024-04-01', null],
    ['quarterly component skips the first monthly boundary', quarterly, '2024-02-01', 'RENEWAL', null, null],
    ['quarterly component skips a monthly boundary', quarterly, '2024-03-01', 'RENEWAL', null, null],
    ['cancelled mid-period: usage up to the cancellation', { ...monthly, endDate: '2024-03-10' }, '2024-03-10', 'FINAL', null, '2024-03-01..2024-03-10'],
    ['cancelled during the first period: its usage is still billed', { ...monthly, endDate: '2024-01-20' }, '2024-01-20', 'FINAL', null, '2024-01-15..2024-01-20'],
    ['cancelled on a boundary: the whole last period', { ...monthly, endDate: '2024-03-01' }, '2024-03-01', 'FINAL', null, '2024-02-01..2024-03-01'],
    ['quarterly component cancelled during its first period', { ...quarterly, endDate: '2024-03-10' }, '2024-03-10', 'FINAL', null, '2024-01-15..2024-03-10'],
    ['quarterly component cancelled mid-quarter', { ...quarterly, endDate: '2024-05-10' }, '2024-05-10', 'FINAL', null, '2024-04-01..2024-05-10'],
  ])('%s', (_name, schedule, invoiceDate, occasion, advance, arrears) => {
    const windows = invoiceWindows(schedule, invoiceDate, occasion);
    expect([window(windows.advance), window(windows.arrears)]).toEqual([advance, arrears]);
  });

  it('refuses a first invoice not dated on the start or a final one not on the end date', () => {
    expect(() => invoiceWindows(monthly, '2024-01-16', 'FIRST')).toThrow(BillingRuleError);
    expect(() => invoiceWindows({ ...monthly, endDate: '2024-03-10' }, '2024-03-11', 'FINAL')).toThrow(BillingRuleError);
  });
});

import { describe, expect, it } from 'vitest';
import {
  consumeGrants, consumptionOrder, dueExpiries, grantInForce, grantValueMinor, type ConsumableGrant, type PayableLine,
} from '../../src/domain/credits.js';
import { Dec, formatMinor, parseAmountMinor } from '../../src/kernel/money.js';

const at = (iso: string) => new Date(iso);
const NOW = at('2026-04-01T00:00:00.000Z');

function grant(id: string, remainingMinor: bigint, over: Partial<ConsumableGrant> = {}): ConsumableGrant {
  return { id, priority: 100, effectiveAt: at('2026-01-01T00:00:00.000Z'), expiresAt: null, remainingMinor, applicability: { kind: 'ALL' }, ...over };
}
const fee = (id: string, totalMinor: bigint): PayableLine => ({ id, category: 'RECURRING', metricId: null, totalMinor });
const usage = (id: string, totalMinor: bigint, metricId = 'bm_calls'): PayableLine => ({ id, category: 'USAGE', metricId, totalMinor });

describe('consumption order', () => {
  it.each([
    { name: 'priority first, whatever the expiry', grants: [grant('a', 1n, { priority: 2, expiresAt: at('2026-04-02T00:00:00Z') }), grant('b', 1n, { priority: 1 })], order: ['b', 'a'] },
    { name: 'same priority: soonest expiry first', grants: [grant('a', 1n, { expiresAt: at('2026-06-01T00:00:00Z') }), grant('b', 1n, { expiresAt: at('2026-05-01T00:00:00Z') })], order: ['b', 'a'] },
    { name: 'never-expiring after any expiring one', grants: [grant('a', 1n), grant('b', 1n, { expiresAt: at('2030-01-01T00:00:00Z') })], order: ['b', 'a'] },
    { name: 'then earliest effective, then id', grants: [grant('c', 1n), grant('b', 1n, { effectiveAt: at('2025-12-01T00:00:00Z') }), grant('a', 1n)], order: ['b', 'a', 'c'] },
  ])('$name', ({ grants, order }) => {
    expect(consumptionOrder(grants).map((g) => g.id)).toEqual(order);
  });
});

describe('paying invoice lines from grants', () => {
  it.each([
    {
      name: 'priority 1 pays first; the rest falls to priority 2',
      grants: [grant('p2', 10_000n, { priority: 2 }), grant('p1', 3_000n, { priority: 1 })],
      lines: [fee('l1', 12_000n)], cap: 12_000n,
      paid: [['p1', 'l1', 3_000n], ['p2', 'l1', 9_000n]],
    },
    {
      name: 'a partly used grant spans lines, in line order',
      grants: [grant('g', 5_000n)],
      lines: [fee('l1', 3_000n), usage('l2', 4_000n), fee('l3', 1_000n)], cap: 8_000n,
      paid: [['g', 'l1', 3_000n], ['g', 'l2', 2_000n]],
    },
    {
      name: 'two grants share one line and continue on the next',
      grants: [grant('a', 2_500n, { priority: 1 }), grant('b', 9_999n, { priority: 2 })],
      lines: [usage('l1', 2_000n), usage('l2', 1_000n)], cap: 3_000n,
      paid: [['a', 'l1', 2_000n], ['a', 'l2', 500n], ['b', 'l2', 500n]],
    },
    {
      name: 'usage-only grants skip fees; metric grants pay only their metrics',
      grants: [grant('u', 10_000n, { priority: 1, applicability: { kind: 'USAGE' } }), grant('m', 10_000n, { priority: 0, applicability: { kind: 'METRICS', metricIds: ['bm_storage'] } })],
      lines: [fee('f', 5_000n), usage('calls', 700n, 'bm_calls'), usage('storage', 300n, 'bm_storage')], cap: 6_000n,
      paid: [['m', 'storage', 300n], ['u', 'calls', 700n]],
    },
    {
      name: 'never above the cap (the invoice payable total), and credit lines are not paid',
      grants: [grant('g', 100_000n)],
      lines: [fee('f', 5_000n), { ...fee('credit', -1_000n), category: 'PRORATION' }, usage('u', 2_000n)], cap: 6_000n,
      paid: [['g', 'f', 5_000n], ['g', 'u', 1_000n]],
    },
    {
      name: 'nothing left of a grant pays nothing',
      grants: [grant('empty', 0n)], lines: [fee('f', 100n)], cap: 100n, paid: [],
    },
  ])('$name', ({ grants, lines, cap, paid }) => {
    expect(consumeGrants(grants, lines, NOW, cap).map((c) => [c.grantId, c.lineId, c.amountMinor])).toEqual(paid);
  });
});

describe('expiry on period boundaries', () => {
  // a March invoice dated 2026-04-01 and finalized at 00:00 that day
  const finalizedAt = at('2026-04-01T00:00:00.000Z');
  it.each([
    { expiresAt: '2026-04-01T00:00:00.000Z', pays: false, expires: true },
    { expiresAt: '2026-04-01T00:00:00.001Z', pays: true, expires: false },
    { expiresAt: '2026-03-31T23:59:59.999Z', pays: false, expires: true },
  ])('a grant expiring at $expiresAt pays: $pays, expires: $expires', ({ expiresAt, pays, expires }) => {
    const g = grant('g', 1_000n, { expiresAt: at(expiresAt) });
    expect(grantInForce(g, finalizedAt)).toBe(pays);
    expect(consumeGrants([g], [fee('l', 400n)], finalizedAt, 400n).length > 0).toBe(pays);
    expect(dueExpiries([g], finalizedAt)).toEqual(expires ? [{ grantId: 'g', amountMinor: -1_000n, at: at(expiresAt) }] : []);
  });

  it('a grant starting exactly at the instant pays; one starting a millisecond later does not', () => {
    const starts = grant('s', 1_000n, { effectiveAt: finalizedAt });
    const later = grant('l', 1_000n, { effectiveAt: new Date(finalizedAt.getTime() + 1) });
    expect(consumeGrants([later, starts], [fee('f', 1_500n)], finalizedAt, 1_500n).map((c) => [c.grantId, c.amountMinor])).toEqual([['s', 1_000n]]);
  });

  it('expires only the remainder, and nothing of a used-up grant', () => {
    expect(dueExpiries([grant('half', 250n, { expiresAt: finalizedAt }), grant('used', 0n, { expiresAt: finalizedAt })], finalizedAt))
      .toEqual([{ grantId: 'half', amountMinor: -250n, at: finalizedAt }]);
  });
});

describe('currencies with 0 and 3 decimals', () => {
  it.each([
    { currency: 'JPY', grant: { units: '1000', rate: '1.25' }, value: '1250' },
    { currency: 'JPY', grant: { units: '3', rate: '0.5' }, value: '2' }, // 1.5 yen rounds once, half away from zero
    { currency: 'KWD', grant: { units: '1000', rate: '0.0125' }, value: '12.500' },
    { currency: 'BHD', grant: { units: '7', rate: '0.0001' }, value: '0.001' }, // 0.0007 -> 0.001
    { currency: 'EUR', grant: { units: '1', rate: '0.004' }, value: '0.00' },
  ])('$grant.units units at $grant.rate are worth $value $currency', ({ currency, grant: g, value }) => {
    expect(formatMinor(grantValueMinor(currency, { units: new Dec(g.units), rate: new Dec(g.rate) }), currency)).toBe(value);
  });

  it.each([
    { currency: 'JPY', grants: ['500', '800'], lines: ['700', '400'], paid: ['500', '200', '400'] },
    { currency: 'KWD', grants: ['1.250', '10.000'], lines: ['0.750', '2.125'], paid: ['0.750', '0.500', '1.625'] },
  ])('pays $currency lines exactly to the minor unit', ({ currency, grants, lines, paid }) => {
    const minor = (text: string) => parseAmountMinor(text, currency);
    const consumed = consumeGrants(
      grants.map((amount, i) => grant(`g${i}`, minor(amount), { priority: i + 1 })),
      lines.map((amount, i) => usage(`l${i}`, minor(amount))),
      NOW,
      lines.reduce((sum, amount) => sum + minor(amount), 0n),
    );
    expect(consumed.map((c) => formatMinor(c.amountMinor, currency))).toEqual(paid);
    // the ledger stays whole: what was taken equals what the lines asked for
    expect(consumed.reduce((sum, c) => sum + c.amountMinor, 0n)).toBe(lines.reduce((sum, amount) => sum + minor(amount), 0n));
  });
});

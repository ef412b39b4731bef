// Prepaid credit grants: which grants are in force, the order they are consumed in, and how an
// invoice's lines are paid from them. Pure arithmetic on integer minor units of one currency;
// the only rounding is the value of a grant in a custom credit unit (`grantValueMinor`), once,
// when the grant is made. docs/credits-and-alerts.md ("Prepaid credits") states the rules.
import type { Decimal } from 'decimal.js';
import { minMinor, toMinor, type CurrencyCode } from '../kernel/money.js';

/** What a grant may pay for: every fee, usage fees only, or the usage of named metrics. */
export type CreditApplicability =
  | { readonly kind: 'ALL' }
  | { readonly kind: 'USAGE' }
  | { readonly kind: 'METRICS'; readonly metricIds: readonly string[] };

/** A grant as consumption sees it: its order keys, its validity and what the ledger says is left. */
export interface ConsumableGrant {
  readonly id: string;
  /** 1 is consumed first; equal priorities go by soonest expiry. */
  readonly priority: number;
  readonly effectiveAt: Date;
  /** Exclusive: at this instant the grant no longer pays anything. null: never expires. */
  readonly expiresAt: Date | null;
  /** The grant's ledger sum (minor units); never negative. */
  readonly remainingMinor: bigint;
  readonly applicability: CreditApplicability;
}

/** One invoice line as a payer sees it: what it still asks for, tax included. */
export interface PayableLine {
  readonly id: string;
  /** Invoice line category (RECURRING, USAGE, ONE_TIME, PRORATION, COMMITMENT). */
  readonly category: string;
  readonly metricId: string | null;
  /** The line's total after discount and tax; a line at or below zero is not paid from credits. */
  readonly totalMinor: bigint;
}

export interface GrantConsumption {
  readonly grantId: string;
  readonly lineId: string;
  readonly amountMinor: bigint;
}

/** A grant pays at `at` when it has begun and has not expired: effectiveAt <= at < expiresAt. */
export function grantInForce(grant: Pick<ConsumableGrant, 'effectiveAt' | 'expiresAt'>, at: Date): boolean {
  return grant.effectiveAt.getTime() <= at.getTime() && (grant.expiresAt === null || at.getTime() < grant.expiresAt.getTime());
}

/** Whether a grant may pay this line. */
export function grantApplies(applicability: CreditApplicability, line: Pick<PayableLine, 'category' | 'metricId'>): boolean {
  switch (applicability.kind) {
    case 'ALL': return true;
    case 'USAGE': return line.category === 'USAGE';
    case 'METRICS': return line.category === 'USAGE' && line.metricId !== null && applicability.metricIds.includes(line.metricId);
  }
}

/**
 * The consumption order: priority (1 first), then soonest expiry (never-expiring last), then the
 * earliest effective date, then the id (ids sort by creation), so the order is total and stable.
 */
export function consumptionOrder<G extends ConsumableGrant>(grants: readonly G[]): G[] {
  const expiry = (g: ConsumableGrant) => g.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
  return [...grants].sort((a, b) =>
    a.priority - b.priority
    || expiry(a) - expiry(b)
    || a.effectiveAt.getTime() - b.effectiveAt.getTime()
    || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Pays an invoice's lines from the grants in force at `at`, in consumption order: each grant pays
 * the lines it applies to, in line order, as far as its remainder goes, then the next grant takes
 * over. Never more than `capMinor` in all (the invoice's payable total). One entry per grant and
 * line actually paid; amounts are whole minor units taken from whole minor units, so nothing is
 * rounded.
 */
export function consumeGrants(grants: readonly ConsumableGrant[], lines: readonly PayableLine[], at: Date, capMinor: bigint): GrantConsumption[] {
  const owed = new Map(lines.map((line) => [line.id, line.totalMinor > 0n ? line.totalMinor : 0n]));
  let cap = capMinor > 0n ? capMinor : 0n;
  const out: GrantConsumption[] = [];
  for (const grant of consumptionOrder(grants.filter((g) => g.remainingMinor > 0n && grantInForce(g, at)))) {
    let left = grant.remainingMinor;
    for (const line of lines) {
      if (left === 0n || cap === 0n) break;
      const due = owed.get(line.id) ?? 0n;
      if (due === 0n || !grantApplies(grant.applicability, line)) continue;
      const amountMinor = minMinor(minMinor(due, left), cap);
      owed.set(line.id, due - amountMinor);
      left -= amountMinor;
      cap -= amountMinor;
      out.push({ grantId: grant.id, lineId: line.id, amountMinor });
    }
    if (cap === 0n) break;
  }
  return out;
}

/** Grants whose expiry has come by `at` with something left: that remainder leaves the balance. */
export function dueExpiries(grants: readonly ConsumableGrant[], at: Date): { grantId: string; amountMinor: bigint; at: Date }[] {
  return grants
    .filter((g) => g.expiresAt !== null && g.expiresAt.getTime() <= at.getTime() && g.remainingMinor > 0n)
    .map((g) => ({ grantId: g.id, amountMinor: -g.remainingMinor, at: g.expiresAt! }));
}

/**
 * The money value of a grant: an amount in the currency as is, or `units` of a custom credit unit
 * at `rate` currency per unit, rounded once to the currency's minor unit (half away from zero).
 */
export function grantValueMinor(currency: CurrencyCode, grant: { amount: Decimal } | { units: Decimal; rate: Decimal }): bigint {
  return 'amount' in grant ? toMinor(grant.amount, currency) : toMinor(grant.units.times(grant.rate), currency);
}

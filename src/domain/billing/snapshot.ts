// The subscription as the billing engine sees it: dates, fees with effective dates, coupons.
// Self-contained (plain strings and numbers, as stored), so the subscriptions module maps its
// rows onto it field by field; prices and quantities are decimal strings, never JS numbers.
import type { Decimal } from 'decimal.js';
import { Dec, MoneyError, parseDecimal, type CurrencyCode } from '../../kernel/money.js';
import { addDays, compareDates, parseLocalDate, type LocalDate } from '../dates.js';
import { BillingRuleError } from '../errors.js';
import { TERM_MONTHS, type BillingSchedule, type BillingTerm } from '../periods.js';
import { isInForce, shortestTerm, stopDate } from '../subscription-lifecycle.js';

/** Tier as the catalog stores it: the tier runs from `firstUnit` up to the next tier's firstUnit. */
export interface SnapshotTier {
  readonly firstUnit: string;
  readonly unitPrice: string;
  readonly flatFee?: string | null;
  /** Ceiling on this tier's amount (units × unitPrice + flatFee). */
  readonly flatCap?: string | null;
}

export type SnapshotUsagePricing =
  | { readonly model: 'PER_UNIT'; readonly unitPrice: string }
  | { readonly model: 'TIERED' | 'VOLUME'; readonly tiers: readonly SnapshotTier[] }
  | { readonly model: 'PACKAGE'; readonly blockSize: string; readonly pricePerBlock: string; readonly partialBlock?: 'UP' | 'DOWN' }
  /** One cell per combination of dimension values (e.g. {region: 'eu', cpu: 'gpu'}). */
  | { readonly model: 'MATRIX'; readonly cells: readonly { readonly dimensions: Readonly<Record<string, string>>; readonly unitPrice: string }[] };

/** Prices are per `term` of the component (a RATE of "90.00" QUARTERLY is 90 per quarter). */
export type SnapshotFee =
  | { readonly kind: 'RATE'; readonly price: string }
  | { readonly kind: 'SLOT'; readonly unitPrice: string; /** whole slots */ readonly quantity: number }
  | {
      readonly kind: 'CAPACITY';
      readonly metricId: string;
      /** Units the base price includes per full period. */
      readonly includedQuantity: string;
      readonly basePrice: string;
      readonly overageUnitPrice: string;
    }
  | { readonly kind: 'USAGE'; readonly metricId: string; readonly pricing: SnapshotUsagePricing }
  | { readonly kind: 'EXTRA_RECURRING'; readonly quantity: string; readonly unitPrice: string; readonly billing: 'ADVANCE' | 'ARREARS' }
  | { readonly kind: 'ONE_TIME'; readonly quantity: string; readonly unitPrice: string };

export interface SnapshotComponent {
  /** Unique per snapshot: one row of subscription_components / subscription_add_ons. */
  readonly id: string;
  readonly name: string;
  readonly productId?: string | null;
  readonly fee: SnapshotFee;
  /** Billing term of recurring fees; ignored for ONE_TIME. */
  readonly term: BillingTerm;
  /** First day the component is in force. */
  readonly effectiveFrom: LocalDate;
  /** Exclusive: first day it is no longer in force; null = open. */
  readonly effectiveTo?: LocalDate | null;
}

export type SnapshotCoupon = {
  readonly couponId: string;
  /** Shown on the invoice, e.g. the coupon code. */
  readonly name?: string | null;
  /** How many more invoices it may discount; null = forever. 0 = exhausted. */
  readonly invoicesRemaining: number | null;
} & (
  | { readonly kind: 'PERCENTAGE'; /** "10" = 10 % */ readonly percent: string }
  | { readonly kind: 'FIXED'; /** Major units taken off EACH invoice it applies to. */ readonly amount: string; readonly currency: CurrencyCode }
);

export interface SubscriptionSnapshot {
  readonly subscriptionId: string;
  readonly currency: CurrencyCode;
  /** Service start (subscription start_date). */
  readonly startDate: LocalDate;
  /** First billed day: defaults to the free trial's end, else the start date. */
  readonly billingStartDate?: LocalDate | null;
  /** 1..31; clamped in shorter months. */
  readonly billingDayAnchor: number;
  readonly netTerms: number;
  /** `endDate` is exclusive. A paid trial bills like no trial; a free trial bills nothing before its end. */
  readonly trial?: { readonly endDate: LocalDate; readonly isFree: boolean } | null;
  /** Contract end (exclusive), known in advance: the last period is cut and prorated there. */
  readonly endDate?: LocalDate | null;
  /** Cancellation (exclusive effective date). Advance fees already billed past it are credited. */
  readonly cancellation?: { readonly mode: 'END_OF_PERIOD' | 'IMMEDIATE'; readonly effectiveDate: LocalDate } | null;
  readonly components: readonly SnapshotComponent[];
  readonly coupons?: readonly SnapshotCoupon[];
  /** Per full subscription period, major units; prorated on partial periods. */
  readonly minimumCommitment?: string | null;
  readonly taxInclusive?: boolean;
}

/** Parses a decimal string of the snapshot, naming the field when it is not one. */
export function snapshotDecimal(text: string, path: string, allowNegative = false): Decimal {
  let value: Decimal;
  try {
    value = parseDecimal(text);
  } catch (error) {
    if (error instanceof MoneyError) throw new BillingRuleError('INVALID_PRICING', `${path} must be a decimal string, got ${JSON.stringify(text)}`);
    throw error;
  }
  if (!allowNegative && value.isNegative()) throw new BillingRuleError('INVALID_PRICING', `${path} must not be negative`);
  return new Dec(value);
}

export function isRecurring(component: SnapshotComponent): boolean {
  return component.fee.kind !== 'ONE_TIME';
}

/** First billed day. */
export function billingStartOf(snapshot: SubscriptionSnapshot): LocalDate {
  if (snapshot.billingStartDate != null) return snapshot.billingStartDate;
  if (snapshot.trial?.isFree === true && compareDates(snapshot.trial.endDate, snapshot.startDate) > 0) return snapshot.trial.endDate;
  return snapshot.startDate;
}

/** Exclusive date billing stops (the lifecycle's stop date): the contract end or the cancellation. */
export function stopDateOf(snapshot: SubscriptionSnapshot): LocalDate | null {
  return stopDate({ endDate: snapshot.endDate ?? null, cancelEffectiveDate: snapshot.cancellation?.effectiveDate ?? null });
}

/** The subscription's own term: the shortest term of its recurring components (`shortestTerm`). */
export function subscriptionTermOf(snapshot: SubscriptionSnapshot): BillingTerm {
  return shortestTerm(snapshot.components.filter(isRecurring).map((c) => c.term));
}

/**
 * Schedule used to bill in advance: cut only at the contract end, which is known when the advance
 * is billed. A cancellation is not applied here; it credits the unused days on the final invoice,
 * so the result does not depend on whether the cancellation was recorded before or after a renewal.
 */
export function advanceSchedule(snapshot: SubscriptionSnapshot, term: BillingTerm): BillingSchedule {
  return { startDate: billingStartOf(snapshot), anchorDay: snapshot.billingDayAnchor, term, endDate: snapshot.endDate ?? null };
}

/** Schedule used for arrears and for the invoice dates: cut at the stop date. */
export function stopSchedule(snapshot: SubscriptionSnapshot, term: BillingTerm): BillingSchedule {
  return { startDate: billingStartOf(snapshot), anchorDay: snapshot.billingDayAnchor, term, endDate: stopDateOf(snapshot) };
}

/** True when the component is in force on `date`. */
export function isActiveOn(component: SnapshotComponent, date: LocalDate): boolean {
  return isInForce(component.effectiveFrom, component.effectiveTo, date);
}

/** Checks the snapshot once so that later failures cannot be half-way through an invoice. */
export function validateSnapshot(snapshot: SubscriptionSnapshot): void {
  parseLocalDate(snapshot.startDate);
  const billingStart = billingStartOf(snapshot);
  if (compareDates(billingStart, snapshot.startDate) < 0) {
    throw new BillingRuleError('INVALID_PERIOD', `billingStartDate ${billingStart} is before startDate ${snapshot.startDate}`);
  }
  if (!Number.isInteger(snapshot.billingDayAnchor) || snapshot.billingDayAnchor < 1 || snapshot.billingDayAnchor > 31) {
    throw new BillingRuleError('INVALID_PERIOD', `billingDayAnchor must be 1..31, got ${snapshot.billingDayAnchor}`);
  }
  for (const date of [snapshot.endDate, snapshot.cancellation?.effectiveDate]) {
    if (date != null && compareDates(date, snapshot.startDate) <= 0) {
      throw new BillingRuleError('INVALID_PERIOD', `end or cancellation date ${date} must be after startDate ${snapshot.startDate}`);
    }
  }
  const ids = new Set<string>();
  snapshot.components.forEach((component, index) => {
    const path = `components[${index}]`;
    if (ids.has(component.id)) throw new BillingRuleError('INVALID_PRICING', `${path}.id ${component.id} is used twice`);
    ids.add(component.id);
    if (!(component.term in TERM_MONTHS)) throw new BillingRuleError('INVALID_PERIOD', `${path}.term must be MONTHLY, QUARTERLY, SEMIANNUAL or ANNUAL`);
    parseLocalDate(component.effectiveFrom);
    if (component.effectiveTo != null && compareDates(component.effectiveTo, component.effectiveFrom) < 0) {
      throw new BillingRuleError('INVALID_PERIOD', `${path}.effectiveTo is before effectiveFrom`);
    }
    validateFee(component.fee, `${path}.fee`);
  });
  snapshot.coupons?.forEach((coupon, index) => {
    if (coupon.kind === 'PERCENTAGE') snapshotDecimal(coupon.percent, `coupons[${index}].percent`);
    else snapshotDecimal(coupon.amount, `coupons[${index}].amount`);
  });
  if (snapshot.minimumCommitment != null) snapshotDecimal(snapshot.minimumCommitment, 'minimumCommitment');
}

function validateFee(fee: SnapshotFee, path: string): void {
  switch (fee.kind) {
    case 'RATE':
      snapshotDecimal(fee.price, `${path}.price`);
      return;
    case 'SLOT':
      snapshotDecimal(fee.unitPrice, `${path}.unitPrice`);
      if (!Number.isSafeInteger(fee.quantity) || fee.quantity < 0) throw new BillingRuleError('INVALID_QUANTITY', `${path}.quantity must be a whole number >= 0`);
      return;
    case 'CAPACITY':
      snapshotDecimal(fee.includedQuantity, `${path}.includedQuantity`);
      snapshotDecimal(fee.basePrice, `${path}.basePrice`);
      snapshotDecimal(fee.overageUnitPrice, `${path}.overageUnitPrice`);
      return;
    case 'USAGE':
      return; // priced (and validated) by the pricing functions
    case 'EXTRA_RECURRING':
    case 'ONE_TIME':
      snapshotDecimal(fee.quantity, `${path}.quantity`);
      snapshotDecimal(fee.unitPrice, `${path}.unitPrice`);
  }
}

/** The day before `date`: the last day covered by a period ending on `date`. */
export function dayBefore(date: LocalDate): LocalDate {
  return addDays(date, -1);
}

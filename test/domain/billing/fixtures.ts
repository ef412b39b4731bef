// Builders for the subscription billing engine tests (not a test file itself).
import type { SnapshotComponent, SnapshotFee, SubscriptionSnapshot } from '../../../src/domain/billing/index.js';
import type { BillingTerm } from '../../../src/domain/periods.js';

export function component(id: string, fee: SnapshotFee, extra: Partial<SnapshotComponent> = {}): SnapshotComponent {
  return { id, name: extra.name ?? id, fee, term: 'MONTHLY' as BillingTerm, effectiveFrom: '2000-01-01', ...extra };
}

export const rate = (price: string): SnapshotFee => ({ kind: 'RATE', price });
export const slot = (unitPrice: string, quantity: number): SnapshotFee => ({ kind: 'SLOT', unitPrice, quantity });
export const perUnit = (metricId: string, unitPrice: string): SnapshotFee => ({ kind: 'USAGE', metricId, pricing: { model: 'PER_UNIT', unitPrice } });

export function snapshot(components: SnapshotComponent[], extra: Partial<SubscriptionSnapshot> = {}): SubscriptionSnapshot {
  const startDate = extra.startDate ?? '2024-01-01';
  return {
    subscriptionId: 'sub_1',
    currency: 'EUR',
    startDate,
    billingDayAnchor: 1,
    netTerms: 30,
    // components default to being in force from the subscription start
    components: components.map((c) => (c.effectiveFrom === '2000-01-01' ? { ...c, effectiveFrom: startDate } : c)),
    ...extra,
  };
}

/** Seller in France at 20 %, customer in France: 20 % exclusive unless the test says otherwise. */
export const FR_ENTITY = { country: 'FR', standardRates: { FR: '0.2', DE: '0.19' } };
export const FR_CUSTOMER = { country: 'FR' };
export const NO_TAX_CUSTOMER = { country: 'FR', taxExempt: true };

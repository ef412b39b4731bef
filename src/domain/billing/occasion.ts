// The identity and period of one invoice a subscription owes (see occasions.ts for how they are found).
import type { LocalDate } from '../dates.js';

export type OccasionKind = 'FIRST' | 'RENEWAL' | 'FINAL' | 'ADJUSTMENT';

export interface BillingOccasion {
  readonly kind: OccasionKind;
  /** RECURRING for FIRST, RENEWAL and FINAL; ADJUSTMENT for a mid-period change invoiced at once. */
  readonly invoiceType: 'RECURRING' | 'ADJUSTMENT';
  /** Unique per subscription: the identity to de-duplicate invoices on. */
  readonly invoiceDate: LocalDate;
  /**
   * Invoice period. FIRST/RENEWAL: the subscription period billed in advance. FINAL: the empty
   * range [stop, stop) (it only closes periods; its lines carry them). ADJUSTMENT: from the change
   * to the end of the subscription period containing it. periodStart always equals invoiceDate.
   */
  readonly periodStart: LocalDate;
  readonly periodEnd: LocalDate;
  /** Subscription period index of the advance period (null for FINAL). */
  readonly cycleIndex: number | null;
  /** Days whose mid-period changes land on this invoice (its own date included when it has changes). */
  readonly adjustmentDates: readonly LocalDate[];
}

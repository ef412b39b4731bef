// The subscription's next invoice date, as the billing engine decides it. The subscriptions module
// shows it (`next_invoice_date`, passed in by the composition root) and the portal lists it; both
// read it here, so it is the date the billing run will invoice on, never a second estimate.
import { nextOccasion, type LocalDate } from '../../domain/index.js';
import type { SubscriptionRecord } from '../subscriptions/index.js';
import { toEngineSnapshot, type PlanTerms } from './billing/mapping.js';

/** Which occasions bill depends on the fees and dates only: the plan's tax inclusion and minimum change amounts. */
const NO_AMOUNT_TERMS: PlanTerms = { taxInclusive: false, minimumCommitment: null };

/** The date of the first invoice after `today` with something to bill, or null when no invoice will come. */
export function nextInvoiceDateOf(record: SubscriptionRecord, today: LocalDate): LocalDate | null {
  return nextOccasion(toEngineSnapshot(record, NO_AMOUNT_TERMS).snapshot, today)?.invoiceDate ?? null;
}

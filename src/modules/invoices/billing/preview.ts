import type { Clock } from '../../../kernel/clock.js';
import { breakdownRows, lineRows, newDraftRow } from '../drafts.js';
import type { InvoiceDetail } from '../repository.js';
import type { BillingRun } from './run.js';

/**
 * The upcoming invoice as an unsaved InvoiceDetail (id `upcoming`, status DRAFT), computed by the
 * engine exactly as the run computes it and mapped as the run stores drafts, so the preview and
 * the real invoice cannot differ.
 */
export async function upcomingInvoice(run: BillingRun, clock: Clock, tenantId: string, subscription: Parameters<BillingRun['upcoming']>[1]): Promise<InvoiceDetail | null> {
  const next = await run.upcoming(tenantId, subscription);
  if (next === null) return null;
  const { subject, input } = next;
  const now = clock.now();
  const lines = lineRows('upcoming', input, now.getTime());
  return {
    // The same row the run would store, under the id `upcoming` and without auto-finalization.
    invoice: { ...newDraftRow(input, subject.customer, subject.entity, now), id: 'upcoming', finalize_after: null },
    lines: lines.map(({ line, subLines }) => ({ ...line, sub_lines: subLines })),
    taxBreakdown: breakdownRows(input.computed.taxBreakdown),
    transactions: [],
  };
}

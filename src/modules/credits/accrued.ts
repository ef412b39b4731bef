import type { Queryable } from '../../db/pool.js';
import { LIVE_STATUSES } from '../../domain/index.js';
import { sumMinor } from '../../kernel/money.js';
import { loadSubscriptionRecords } from '../subscriptions/index.js';
import type { InvoiceDetail } from '../invoices/index.js';
import type { AccruedUsage } from './service.js';

/**
 * The accrued usage of a customer from the invoices module's upcoming invoices (the preview the
 * billing run itself computes): the USAGE lines, tax included, of each live subscription's next
 * invoice in the customer's currency. No second pricing path.
 */
export function accruedUsageOf(upcoming: (tenantId: string, subscriptionId: string) => Promise<InvoiceDetail | null>): AccruedUsage {
  return async (db: Queryable, tenantId, customerId, currency) => {
    const records = await loadSubscriptionRecords(db, tenantId, { customerId, statuses: LIVE_STATUSES });
    const previews = await Promise.all(records.map((record) => upcoming(tenantId, record.subscription.id)));
    return sumMinor(previews.flatMap((detail) =>
      detail && detail.invoice.currency === currency ? detail.lines.filter((line) => line.category === 'USAGE').map((line) => line.total_minor) : []));
  };
}

import { expect } from 'vitest';
import { Dec } from '../../src/kernel/money.js';
import { assembleInvoice, type InvoiceLineInput, type TaxDecision } from '../../src/domain/index.js';
import type { DraftInvoiceInput } from '../../src/modules/invoices/index.js';
import type { Harness } from '../harness/app.js';

export const VAT20: TaxDecision = { treatment: 'STANDARD', rate: new Dec('0.2'), country: 'FR' };

export async function createCustomer(h: Harness, body: Record<string, unknown> = {}, key?: string): Promise<{ id: string; currency: string }> {
  const res = await h.request('POST', '/api/v1/customers', { body: { name: 'ACME SAS', currency: 'EUR', ...body }, ...(key ? { key } : {}) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export interface DraftOptions extends Partial<Omit<DraftInvoiceInput, 'computed'>> {
  lines?: InvoiceLineInput[];
  tax?: TaxDecision;
  currency?: string;
  tenantId?: string;
}

/** 100.00 seats + 20.00 usage (with two tier sub-lines), 20 % VAT: total 144.00. */
export function standardLines(): InvoiceLineInput[] {
  return [
    { name: 'Platform fee', category: 'RECURRING', amount: new Dec('100'), quantity: new Dec('1'), unitPrice: new Dec('100'), periodStart: '2026-03-01', periodEnd: '2026-03-31' },
    { name: 'API calls', category: 'USAGE', amount: new Dec('20'), quantity: new Dec('1500'), periodStart: '2026-02-01', periodEnd: '2026-02-28' },
  ];
}

export async function createDraft(h: Harness, customerId: string, options: DraftOptions = {}) {
  const computed = assembleInvoice({
    currency: options.currency ?? 'EUR',
    taxInclusive: false,
    lines: options.lines ?? standardLines(),
    tax: options.tax ?? VAT20,
  });
  return h.service.invoicing.invoices.createDraft(options.tenantId ?? h.tenant.id, {
    customerId,
    invoiceType: options.invoiceType ?? 'RECURRING',
    invoiceDate: options.invoiceDate ?? '2026-03-01',
    autoAdvance: options.autoAdvance ?? false,
    subscriptionId: options.subscriptionId ?? null,
    periodStart: options.periodStart ?? null,
    periodEnd: options.periodEnd ?? null,
    purchaseOrder: options.purchaseOrder ?? null,
    memo: options.memo ?? null,
    autoCharge: options.autoCharge ?? null,
    computed,
    lineDetails: options.lineDetails ?? [
      undefined,
      {
        metricId: 'bm_api_calls',
        subLines: [
          { name: 'Tier 1 (0-1000)', quantity: '1000', unitPrice: '0.01', totalMinor: 1000n },
          { name: 'Tier 2 (1000+)', quantity: '500', unitPrice: '0.02', totalMinor: 1000n },
        ],
      },
    ],
  });
}

export async function outbox(h: Harness, objectId: string): Promise<{ event_type: string; payload: Record<string, unknown> }[]> {
  const result = await h.db.pool.query('SELECT event_type, payload FROM outbox_events WHERE object_id = $1 ORDER BY seq', [objectId]);
  return result.rows;
}

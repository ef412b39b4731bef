// Examples of the OpenAPI document: what Acme SAS (alias crm-42) sees through its portal link.
import type { Static } from 'typebox';
import type { CustomerPortalTokenResponse, PortalCustomer, PortalInvoice, PortalSubscriptionSchema, PortalUsage } from './schemas.js';

const TOKEN = 'pt_p2gU3g6owpxnV3oD7Q0klA0xQW5cY8L6vOXa9gUs';

export const tokenExample: Static<typeof CustomerPortalTokenResponse> = {
  token: TOKEN,
  portal_url: `https://billing.example.com/portal/customer?token=${TOKEN}`,
  expires_at: '2026-03-15T13:00:00.000Z',
};

export const customerExample: Static<typeof PortalCustomer> = {
  id: 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ', name: 'Acme SAS', alias: 'crm-42', billing_email: 'billing@acme.example', currency: 'EUR', balance: '12.00',
};

export const subscriptionsExample: { data: Static<typeof PortalSubscriptionSchema>[] } = {
  data: [{
    id: 'sub_01KKRNW4G0P3977S414S2FKJMX',
    plan_id: 'plan_01KKRNW4G0M43TXH0ST77BFT9K',
    plan_name: 'Pro',
    plan_version: 1,
    status: 'ACTIVE',
    currency: 'EUR',
    start_date: '2026-03-01',
    end_date: null,
    cancel_effective_date: null,
    current_period_start: '2026-03-01',
    current_period_end: '2026-04-01',
    next_invoice_date: '2026-04-01',
  }],
};

export const usageExample: { data: Static<typeof PortalUsage>[] } = {
  data: [{
    subscription_id: 'sub_01KKRNW4G0P3977S414S2FKJMX',
    plan_name: 'Pro',
    period_start: '2026-03-01',
    period_end: '2026-04-01',
    usage: [{ metric_id: 'bm_01KKRNW4G0KBE7DQXQZG9JW7X3', metric_name: 'API calls', metric_code: 'api_calls', total_value: '1342' }],
  }],
};

const invoice: Static<typeof PortalInvoice> = {
  id: 'inv_01KKRNW4G02VQRWZ659SDQV12J',
  invoice_number: 'INV-0002',
  status: 'FINALIZED',
  invoice_date: '2026-04-01',
  due_date: '2026-05-01',
  period_start: '2026-04-01',
  period_end: '2026-05-01',
  currency: 'EUR',
  total: '205.32',
  amount_due: '205.32',
  payment_status: 'UNPAID',
  e_invoice_format: null,
};

export const invoicesExample = { data: [invoice], pagination_meta: { page: 0, per_page: 10, total_items: 1, total_pages: 1 } };

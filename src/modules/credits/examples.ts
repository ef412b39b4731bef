// Examples of the OpenAPI document (test/contract checks that they satisfy their schemas).
export const CUSTOMER_ID = 'cus_01KKRNW4G09800J8VYYXS128WA';
export const GRANT_ID = 'cgr_01KKRNW4G09800J8VYYXS128WB';

export const createGrantExample = { name: 'Pack of 1000', type: 'PAID' as const, credit_unit: { name: 'credits', amount: '1000', rate: '0.05' }, priority: 10, expires_at: '2027-01-01T00:00:00Z' };

export const grantExample = {
  id: GRANT_ID,
  customer_id: CUSTOMER_ID,
  name: 'Pack of 1000',
  type: 'PAID' as const,
  status: 'ACTIVE' as const,
  source: 'API' as const,
  currency: 'EUR',
  amount: '50.00',
  remaining: '35.00',
  credit_unit: { name: 'credits', amount: '1000', rate: '0.05', remaining: '700' },
  priority: 10,
  effective_at: '2026-03-15T12:00:00.000Z',
  expires_at: '2027-01-01T00:00:00.000Z',
  applies_to: 'ALL' as const,
  metric_ids: [],
  invoice_id: 'inv_01KKRNW4G09800J8VYYXS128WC',
  created_at: '2026-03-15T12:00:00.000Z',
  voided_at: null,
};

export const entryExample = {
  id: 'cle_01KKRNW4G09800J8VYYXS128WD',
  sequence: '42',
  customer_id: CUSTOMER_ID,
  grant_id: GRANT_ID,
  type: 'CONSUMPTION' as const,
  amount: '-15.00',
  currency: 'EUR',
  invoice_id: 'inv_01KKRNW4G09800J8VYYXS128WE',
  invoice_line_id: 'inl_01KKRNW4G09800J8VYYXS128WF',
  effective_at: '2026-04-01T00:00:00.000Z',
  created_at: '2026-04-01T00:00:00.000Z',
};

export const balanceExample = {
  customer_id: CUSTOMER_ID,
  currency: 'EUR',
  balance: '35.00',
  accrued_usage: '6.00',
  projected_balance: '29.00',
  pending_top_ups: '0.00',
  as_of: '2026-03-20T09:30:00.000Z',
};

export const topUpBodyExample = { enabled: true, threshold: '10.00', amount: '50.00', priority: 100, expires_after_days: 365 };

export const topUpExample = { customer_id: CUSTOMER_ID, enabled: true, currency: 'EUR', threshold: '10.00', amount: '50.00', priority: 100, expires_after_days: 365, updated_at: '2026-03-15T12:00:00.000Z' };

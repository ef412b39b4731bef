// Example values for the OpenAPI document (routes.ts); shaped as the wire schemas in schemas.ts.

export const percentageCouponExample = {
  id: 'cou_01KKRNW4G01BQ400JVPV2Y6B8V',
  code: 'WELCOME20',
  description: '20 % off the first three invoices',
  discount: { type: 'PERCENTAGE' as const, percentage: '20' },
  expires_at: '2026-12-31T23:59:59.000Z',
  redemption_limit: 500,
  recurring_value: 3,
  reusable: false,
  disabled: false,
  archived_at: null,
  redemption_count: 42,
  last_redemption_at: '2026-03-14T16:20:11.000Z',
  plan_ids: ['plan_01KKRNW4G0RR7S0F96CFXEQTY4'],
  created_at: '2026-03-01T09:00:00.000Z',
};

export const fixedCouponExample = {
  id: 'cou_01KKRNW4G0G38CN0C4017NJJJ9',
  code: 'SPRING10',
  description: null,
  discount: { type: 'FIXED' as const, currency: 'EUR', amount: '10.00' },
  expires_at: null,
  redemption_limit: null,
  recurring_value: null,
  reusable: true,
  disabled: false,
  archived_at: null,
  redemption_count: 0,
  last_redemption_at: null,
  plan_ids: [],
  created_at: '2026-03-15T12:00:00.000Z',
};

export const createCouponExample = {
  code: 'WELCOME20',
  description: '20 % off the first three invoices',
  discount: { type: 'PERCENTAGE' as const, percentage: '20' },
  expires_at: '2026-12-31T23:59:59Z',
  recurring_value: 3,
  redemption_limit: 500,
  plan_ids: ['plan_01KKRNW4G0RR7S0F96CFXEQTY4'],
};

// Example values for the OpenAPI document (routes.ts); shaped as the wire schemas there.

export const ALERT_ID = 'alr_01KKRNW4G0Q841X0CQ0K68EGW9';

export const createAlertExample = {
  name: 'API calls this month',
  kind: 'USAGE_UNITS' as const,
  customer_id: 'cus_01KKRNW4G07K3VXVBQS2VF8J0E',
  metric_id: 'bm_01KKRNW4G0H1V3T9GFT3902B3Z',
  thresholds: ['8000', '10000'],
};

export const alertExample = {
  id: ALERT_ID,
  name: 'API calls this month',
  kind: 'USAGE_UNITS' as const,
  customer_id: 'cus_01KKRNW4G07K3VXVBQS2VF8J0E',
  subscription_id: null,
  metric_id: 'bm_01KKRNW4G0H1V3T9GFT3902B3Z',
  thresholds: ['8000', '10000'],
  status: 'ACTIVE' as const,
  state: [
    { threshold: '8000', triggered: true, period_start: '2026-03-01T00:00:00.000Z', period_end: '2026-04-01T00:00:00.000Z', last_value: '8012', changed_at: '2026-03-20T09:14:02.000Z' },
    { threshold: '10000', triggered: false, period_start: null, period_end: null, last_value: null, changed_at: null },
  ],
  created_at: '2026-03-15T12:00:00.000Z',
  updated_at: '2026-03-15T12:00:00.000Z',
};

export const historyExample = {
  id: '42',
  threshold: '8000',
  transition: 'TRIGGERED' as const,
  value: '8012',
  period_start: '2026-03-01T00:00:00.000Z',
  period_end: '2026-04-01T00:00:00.000Z',
  reason: 'USAGE_COMMITTED' as const,
  event_id: 'evt_01KKRNW4G0CGV4ZC09S0PKPY9G',
  occurred_at: '2026-03-20T09:14:02.000Z',
};

// Examples of the OpenAPI document: a self-serve checkout for plan Pro, created, then paid.
import type { Static } from 'typebox';
import type { CheckoutSession, CompleteCheckoutSessionRequest, CreateCheckoutSessionRequest } from './schemas.js';

type Session = Static<typeof CheckoutSession>;

export const SESSION_ID = 'che_01KKRNW4G0M5XSYGAV6MFWXGA8';

export const createSessionExample: Static<typeof CreateCheckoutSessionRequest> = {
  customer_id: 'crm-42',
  plan_version_id: 'plv_01KKRNW4G08FAJYCA9MA52DWWF',
  components: { parameterized_components: [{ component_id: 'price_01KKRNW4G0BJN5FPVM600B8SVP', parameters: { initial_slot_count: 3 } }] },
  success_url: 'https://shop.example.com/checkout/done',
  cancel_url: 'https://shop.example.com/pricing',
  expires_in_hours: 24,
  purchase_order: 'PO-2026-131',
};

export const createdSessionExample: Session = {
  id: SESSION_ID,
  checkout_type: 'SELF_SERVE',
  status: 'CREATED',
  customer_id: 'cus_01KKRNW4G0TGQFXZ8S1GED4KMJ',
  plan_version_id: 'plv_01KKRNW4G08FAJYCA9MA52DWWF',
  created_at: '2026-03-15T10:04:31.208Z',
  subscription_id: null,
  start_date: null,
  billing_day_anchor: null,
  billing_start_date: null,
  net_terms: null,
  trial_duration_days: null,
  coupon_code: null,
  coupon_ids: [],
  expires_at: '2026-03-16T10:04:31.208Z',
  completed_at: null,
  cancelled_at: null,
  checkout_url: null,
  success_url: 'https://shop.example.com/checkout/done',
  cancel_url: 'https://shop.example.com/pricing',
  payment_methods_config: null,
  payment_reference: null,
};

export const completeSessionExample: Static<typeof CompleteCheckoutSessionRequest> = { payment_status: 'SETTLED', payment_reference: 'pi_3PqK2LJ8x7Rb' };

export const completedSessionExample: Session = {
  ...createdSessionExample,
  status: 'COMPLETED',
  subscription_id: 'sub_01KKRNW4G09ZMPQXDK3TF3ZHKT',
  completed_at: '2026-03-15T10:09:02.771Z',
  payment_reference: 'pi_3PqK2LJ8x7Rb',
};

export const cancelledSessionExample: Session = { ...createdSessionExample, status: 'CANCELLED', cancelled_at: '2026-03-15T10:20:47.003Z' };

export const sessionListExample = { sessions: [completedSessionExample], pagination_meta: { page: 0, per_page: 10, total_items: 1, total_pages: 1 } };

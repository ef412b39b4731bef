// The contract suite against the real `stripe` SDK, pointed at the local Stripe fake.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStripeProvider } from '../../../../src/adapters/payments/stripe.js';
import { ProviderAuthenticationError } from '../../../../src/adapters/payments/provider.js';
import { startStripeFake, type StripeFake } from '../../../harness/stripe-fake.js';
import { paymentProviderContract, type TestMethod } from './contract.js';

const SECRET_KEY = 'sk_test_contract0000000000';
const WEBHOOK_SECRET = 'whsec_contract000000000000';
let fake: StripeFake;

beforeAll(async () => {
  fake = await startStripeFake();
  fake.keys.add(SECRET_KEY);
});
afterAll(async () => fake.close());

const METHODS: Record<TestMethod, string> = { succeeds: 'pm_card_visa', declined: 'pm_card_chargeCustomerFail', requires_action: 'pm_card_authenticationRequired' };
const provider = () => createStripeProvider({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, apiBase: fake.apiBase });

paymentProviderContract('stripe (SDK against the local fake)', {
  provider,
  method: (kind) => METHODS[kind],
  signedEvent: async (eventId, paymentId) => fake.signedEvent(WEBHOOK_SECRET, eventId, 'payment_intent.succeeded', paymentId),
  chargesMade: () => fake.charges,
});

// SEPA Direct Debit: Stripe's test IBANs; a debit answers processing (PENDING) until Stripe settles it
const IBANS: Record<'succeeds' | 'declined', string> = { succeeds: 'AT611904300234573201', declined: 'AT861904300235473202' };
paymentProviderContract('stripe SEPA Direct Debit (SDK against the local fake)', {
  provider,
  method: (kind) => (kind === 'requires_action' ? null : IBANS[kind]),
  signedEvent: async (eventId, paymentId) => fake.signedEvent(WEBHOOK_SECRET, eventId, 'payment_intent.succeeded', paymentId),
  chargesMade: () => fake.charges,
  settle: async (paymentId) => {
    fake.settle(paymentId);
  },
  declineCode: 'insufficient_funds',
});

describe('stripe adapter', () => {
  it('verifies the key with one read-only call, and says when Stripe refuses it', async () => {
    await provider().verify();
    expect(fake.requests.at(-1)).toBe('GET /v1/balance');
    const wrong = createStripeProvider({ secretKey: 'sk_test_wrong000000', webhookSecret: null, apiBase: fake.apiBase });
    await expect(wrong.verify()).rejects.toBeInstanceOf(ProviderAuthenticationError);
  });

  it('refuses a webhook signed with another secret', async () => {
    const p = provider();
    const customer = await p.createCustomer({ name: 'x', email: null, reference: 'cus_x', idempotencyKey: 'cust-webhook' });
    const setup = await p.setupPaymentMethod({ customerId: customer.id, method: 'pm_card_visa', idempotencyKey: 'setup-webhook' });
    if (setup.status !== 'SUCCEEDED') throw new Error('setup failed');
    const payment = await p.charge({ customerId: customer.id, paymentMethodId: setup.method.id, amountMinor: 100n, currency: 'EUR', idempotencyKey: 'charge-webhook', description: 'x', metadata: {} });
    const { body, headers } = fake.signedEvent('whsec_someoneelse000000', 'evt_x', 'payment_intent.succeeded', payment.id);
    await expect(p.parseWebhook(body, headers)).rejects.toThrow(/signature/i);
  });
});

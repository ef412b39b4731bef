// The contract suite against the real `gocardless-nodejs` SDK, pointed at the local GoCardless fake.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION } from 'gocardless-nodejs';
import { createGoCardlessProvider, GOCARDLESS_API_VERSION } from '../../../../src/adapters/payments/gocardless.js';
import { ProviderAuthenticationError } from '../../../../src/adapters/payments/provider.js';
import { startGoCardlessFake, type GoCardlessFake } from '../../../harness/gocardless-fake.js';
import { paymentProviderContract } from './contract.js';

const ACCESS_TOKEN = 'sandbox_ContractAccessToken0000';
const WEBHOOK_SECRET = 'gc-contract-webhook-secret';
// the ISO 13616 example IBAN (a valid check sum); GoCardless decides outcomes when collecting, not when saving
const IBAN = 'DE89 3704 0044 0532 0130 00';
let fake: GoCardlessFake;

beforeAll(async () => {
  fake = await startGoCardlessFake();
  fake.tokens.add(ACCESS_TOKEN);
});
afterAll(async () => fake.close());

const provider = () => createGoCardlessProvider({ accessToken: ACCESS_TOKEN, webhookSecret: WEBHOOK_SECRET, apiBase: fake.apiBase });

paymentProviderContract('gocardless (SDK against the local fake)', {
  provider,
  method: (kind) => (kind === 'requires_action' ? null : IBAN),
  signedEvent: async (eventId, paymentId) => {
    const event = { id: eventId, created_at: new Date().toISOString(), resource_type: 'payments', action: 'confirmed', links: { payment: paymentId }, details: { origin: 'gocardless', cause: 'payment_confirmed', description: 'Payment was confirmed as collected' }, metadata: {} };
    return fake.signedWebhook(WEBHOOK_SECRET, [event]);
  },
  chargesMade: () => fake.payments,
  settle: async (paymentId, outcome) => {
    fake.advance(paymentId, 'submitted');
    fake.advance(paymentId, outcome === 'succeeds' ? 'confirmed' : 'failed');
  },
  declineCode: 'insufficient_funds',
});

describe('gocardless adapter', () => {
  async function mandate() {
    const p = provider();
    const customer = await p.createCustomer({ name: 'ACME SAS', email: null, reference: 'cus_gc', idempotencyKey: `cust-${Math.random()}` });
    const setup = await p.setupPaymentMethod({ customerId: customer.id, method: IBAN, idempotencyKey: `setup-${Math.random()}`, holderName: 'ACME SAS' });
    if (setup.status !== 'SUCCEEDED') throw new Error('setup failed');
    return { p, customerId: customer.id, method: setup.method };
  }

  it('names the API version the SDK sends (written out so that the adapter loads the SDK only at its first call)', () => {
    expect(GOCARDLESS_API_VERSION).toBe(API_VERSION);
  });

  it('verifies the token with one read-only call, and says when GoCardless refuses it', async () => {
    await provider().verify();
    expect(fake.requests.at(-1)).toBe('GET /creditors');
    const wrong = createGoCardlessProvider({ accessToken: 'live_wrong0000', webhookSecret: null, apiBase: fake.apiBase });
    await expect(wrong.verify()).rejects.toBeInstanceOf(ProviderAuthenticationError);
  });

  it('saves an IBAN as a SEPA mandate; reuses a mandate made in GoCardless\'s flow; refuses bad bank details', async () => {
    const { p, customerId, method } = await mandate();
    expect(method).toMatchObject({ id: expect.stringMatching(/^MD/), type: 'DIRECT_DEBIT', directDebit: { scheme: 'sepa_core', accountNumberEnding: '00', bankName: expect.any(String), mandateReference: expect.any(String) } });
    expect(await p.setupPaymentMethod({ customerId, method: method.id, idempotencyKey: 'reuse' })).toMatchObject({ status: 'SUCCEEDED', method: { id: method.id } });
    const other = await p.createCustomer({ name: 'Other', email: null, reference: 'cus_other', idempotencyKey: `cust-${Math.random()}` });
    expect(await p.setupPaymentMethod({ customerId: other.id, method: method.id, idempotencyKey: 'steal' })).toMatchObject({ status: 'FAILED', failureCode: 'mandate_of_another_customer' });
    expect(await p.setupPaymentMethod({ customerId, method: 'DE00370400440532013000', idempotencyKey: `bad-${Math.random()}`, holderName: 'x' })).toMatchObject({ status: 'FAILED', failureCode: 'validation_failed', failureMessage: expect.stringContaining('iban') });
    expect(await p.setupPaymentMethod({ customerId, method: '4242424242424242', idempotencyKey: 'card' })).toMatchObject({ status: 'FAILED', failureCode: 'invalid_bank_details' });
  });

  it('keeps a payment PENDING through submission; a payment in another currency than the mandate\'s is refused by GoCardless', async () => {
    const { p, customerId, method } = await mandate();
    const payment = await p.charge({ customerId, paymentMethodId: method.id, amountMinor: 500n, currency: 'EUR', idempotencyKey: `k-${Math.random()}`, description: 'x', metadata: { attempt_id: 'ptx_1' } });
    expect(fake.payment(payment.id)).toMatchObject({ status: 'pending_submission', amount: 500, links: { mandate: method.id } });
    fake.advance(payment.id, 'submitted');
    expect((await p.getPayment(payment.id)).status).toBe('PENDING');
    fake.advance(payment.id, 'paid_out');
    expect((await p.getPayment(payment.id)).status).toBe('SUCCEEDED');
    await expect(p.charge({ customerId, paymentMethodId: method.id, amountMinor: 500n, currency: 'GBP', idempotencyKey: `k-${Math.random()}`, description: 'x', metadata: {} })).rejects.toThrow(/Validation failed/);
  });

  it('reads every event of a batched delivery and refuses another secret', async () => {
    const { p, customerId, method } = await mandate();
    const payment = await p.charge({ customerId, paymentMethodId: method.id, amountMinor: 700n, currency: 'EUR', idempotencyKey: `k-${Math.random()}`, description: 'x', metadata: {} });
    const delivery = fake.signedWebhook(WEBHOOK_SECRET, [
      fake.advance(payment.id, 'submitted'), fake.advance(payment.id, 'failed'), { id: 'EVMANDATE', resource_type: 'mandates', action: 'active', links: { mandate: method.id } },
      { id: 'EVMANDATE2', resource_type: 'mandates', action: 'cancelled', links: { mandate: method.id } },
    ]);
    expect(await p.parseWebhook(delivery.body, delivery.headers)).toEqual([
      expect.objectContaining({ type: 'payments.submitted', paymentId: payment.id, payment: null, revokedMethodId: null }),
      expect.objectContaining({ type: 'payments.failed', paymentId: payment.id }),
      { id: 'EVMANDATE', type: 'mandates.active', payment: null, paymentId: null, revokedMethodId: null },
      // an ended mandate names the saved method that can no longer be charged
      { id: 'EVMANDATE2', type: 'mandates.cancelled', payment: null, paymentId: null, revokedMethodId: method.id },
    ]);
    expect(await p.getPayment(payment.id)).toMatchObject({ status: 'FAILED', failureCode: 'insufficient_funds', failureMessage: expect.stringContaining('insufficient funds') });
    // a chargeback after collection: FAILED with the bank's cause, and marked as money taken back
    const collected = await p.charge({ customerId, paymentMethodId: method.id, amountMinor: 900n, currency: 'EUR', idempotencyKey: `k-${Math.random()}`, description: 'x', metadata: {} });
    fake.advance(collected.id, 'confirmed');
    expect(await p.getPayment(collected.id)).toMatchObject({ status: 'SUCCEEDED' });
    expect(await p.getPayment(collected.id)).not.toHaveProperty('reversed');
    fake.advance(collected.id, 'charged_back');
    expect(await p.getPayment(collected.id)).toMatchObject({ status: 'FAILED', reversed: true, failureCode: 'refund_requested' });
    const forged = fake.signedWebhook('someone-else', [{ id: 'EVX', resource_type: 'payments', action: 'confirmed', links: { payment: payment.id } }]);
    await expect(p.parseWebhook(forged.body, forged.headers)).rejects.toThrow(/Webhook-Signature/);
  });
});
